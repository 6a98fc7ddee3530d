/**
 * @file flush_compare.cu
 * @brief Evidence for the clean flush: a read-only kernel timed after a write-only flush (a memset
 * of twice the L2, what common harnesses do) and after cl_l2_flush() (that write, then a read of
 * another twice-the-L2 buffer), at several sizes, median of 30 runs each, same process.
 *
 * usage: flush_compare [memset|clean|both|readN] [MB ...]   (default: both 4 64 256 1024)
 * memset: the write-only flush; clean: the harness's (cl_time_launches); both: a table of the two;
 * readN: the memset, then a read of N times the L2 size (N = 2 is the harness's flush, written out
 * here). Under ncu (`-k read_probe`), the read kernel's dram__bytes_write.sum shows what the flush
 * left for it to write back: experiments/gpu-extras.sh records it. Needs a GPU; exits 77 without
 * one.
 */
#include "cl_bench.h"
#include "cl_cuda_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPEATS 30

/* A flush written out here, to compare: a memset of twice the L2 and, when @p read_l2s > 0, a
   read of read_l2s times the L2 size of a buffer that is never written after its first fill. */
static double time_after_flush(const cl_device_info *dev, cl_read_probe *a, int read_l2s)
{
    const size_t flush_bytes = 2 * (size_t)dev->l2_bytes;
    const size_t read_bytes = (size_t)read_l2s * (size_t)dev->l2_bytes;
    void *flush, *clean = NULL;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    double times[REPEATS];
    CL_CUDA_CHECK(cudaMalloc(&flush, flush_bytes));
    if (read_bytes) {
        CL_CUDA_CHECK(cudaMalloc(&clean, read_bytes));
        CL_CUDA_CHECK(cudaMemset(clean, 0, read_bytes));
    }
    cl_read_probe flush_read = {clean, read_bytes, a->sink, a->blocks};
    CL_CUDA_CHECK(cudaStreamCreate(&stream));
    CL_CUDA_CHECK(cudaEventCreate(&start));
    CL_CUDA_CHECK(cudaEventCreate(&stop));
    cl_launch_read_probe(a, stream);
    for (int i = 0; i < REPEATS; i++) {
        CL_CUDA_CHECK(cudaMemsetAsync(flush, i & 0xff, flush_bytes, stream));
        if (read_bytes)
            cl_launch_read_probe(&flush_read, stream);
        CL_CUDA_CHECK(cudaEventRecord(start, stream));
        cl_launch_read_probe(a, stream);
        CL_CUDA_CHECK(cudaEventRecord(stop, stream));
        CL_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms;
        CL_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times[i] = ms;
    }
    CL_CUDA_CHECK(cudaFree(flush));
    if (clean != NULL)
        CL_CUDA_CHECK(cudaFree(clean));
    CL_CUDA_CHECK(cudaEventDestroy(start));
    CL_CUDA_CHECK(cudaEventDestroy(stop));
    CL_CUDA_CHECK(cudaStreamDestroy(stream));
    return cl_median(times, REPEATS);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "both";
    const int read_l2s = strncmp(mode, "read", 4) == 0 ? atoi(mode + 4) : 0;
    if (strcmp(mode, "memset") != 0 && strcmp(mode, "clean") != 0 && strcmp(mode, "both") != 0 &&
        read_l2s < 1) {
        fprintf(stderr, "usage: flush_compare [memset|clean|both|readN] [MB ...]\n");
        return 2;
    }
    static const char *const default_sizes[] = {"4", "64", "256", "1024"};
    const char *const *sizes = argc > 2 ? (const char *const *)argv + 2 : default_sizes;
    const int n_sizes = argc > 2 ? argc - 2 : 4;
    const int old_column = strcmp(mode, "clean") != 0 && read_l2s == 0;
    const int new_column = strcmp(mode, "memset") != 0;
    cl_bench bench;
    cl_bench_open_device(&bench, 0);
    const cl_device_info *dev = &bench.dev;
    float *sink;
    CL_CUDA_CHECK(cudaMalloc(&sink, sizeof(float)));
    printf("%s, L2 %d MB; read-only kernel, median of %d runs\n", dev->name, dev->l2_bytes >> 20,
           REPEATS);
    /* only the columns this mode measures */
    char new_title[32];
    if (read_l2s > 0)
        snprintf(new_title, sizeof new_title, "memset+read%d us", read_l2s);
    else
        snprintf(new_title, sizeof new_title, "then-read us");
    printf("%8s", "MB");
    if (old_column)
        printf(" %16s %8s", "memset flush us", "GB/s");
    if (new_column)
        printf(" %16s %8s", new_title, "GB/s");
    printf("\n");
    for (int s = 0; s < n_sizes; s++) {
        const size_t bytes = (size_t)atoi(sizes[s]) << 20;
        void *in;
        CL_CUDA_CHECK(cudaMalloc(&in, bytes));
        CL_CUDA_CHECK(cudaMemset(in, 0, bytes));
        cl_read_probe a = {in, bytes, sink, (unsigned)dev->sm_count * 8u};
        printf("%8s", sizes[s]);
        if (old_column) {
            const double ms = time_after_flush(dev, &a, 0);
            printf(" %16.1f %8.0f", ms * 1e3, (double)bytes / (ms * 1e6));
        }
        if (new_column) {
            const double ms =
                read_l2s > 0 ? time_after_flush(dev, &a, read_l2s)
                             : cl_time_launches(&bench, cl_launch_read_probe, &a, 1, REPEATS, NULL)
                                   .median_ms;
            printf(" %16.1f %8.0f", ms * 1e3, (double)bytes / (ms * 1e6));
        }
        printf("\n");
        CL_CUDA_CHECK(cudaFree(in));
    }
    CL_CUDA_CHECK(cudaFree(sink));
    return cl_bench_finish(&bench);
}
