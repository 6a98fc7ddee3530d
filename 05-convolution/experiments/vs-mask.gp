# The roofline's bend: GFLOP/s of v4 to v6, v8 to v10 and cuDNN against the mask width K (one channel,
# L = 2^26), from docs/results/05-convolution-vs-mask.txt. docs/pages.py runs it with
# data='...' and out='...' set.
set terminal svg size 900,500 font 'sans,12' background '#ffffff'
set output out
set title "05-convolution: one channel, L = 2^26, throughput against the mask width" noenhanced
set xlabel 'mask width K (taps)'
set ylabel 'GFLOP/s'
set logscale xy 2
set key bottom right noenhanced
set yrange [256:131072]
set grid
plot data using 1:9 with lines lw 2 dt 2 lc rgb '#808080' title 'roofline (copy bandwidth x flops per byte, capped by the FP32 rate)', \
     data using 1:2 with linespoints lw 2 title 'v4_register_tiled', \
     data using 1:3 with linespoints lw 2 title 'v5_shared_taps', \
     data using 1:4 with linespoints lw 2 title 'v6_contiguous_lanes', \
     data using 1:5 with linespoints lw 2 title 'v8_pipelined', \
     data using 1:6 with linespoints lw 2 title 'v9_unrolled_taps', \
     data using 1:7 with linespoints lw 2 title 'v10_split_sums', \
     data using 1:8 with linespoints lw 2 title 'baseline_cudnn'
