/**
 * @file ceiling_order.cu
 * @brief Evidence for measuring the ceilings after the version: a read-only kernel timed as a
 * version is (cl_time_launches() with the default 3 warm-ups and 20 repeats, the clean L2 flush
 * before each), first with nothing just before it, then right after cl_measure_ceilings(), three
 * rounds at each size; then the SM clock, read by a one-thread kernel (clock64() against
 * %globaltimer over 100 µs), before the ceilings and every millisecond after them.
 *
 * usage: ceiling_order [MB ...]   (default: 25 75 256 1024). Needs a GPU; exits 77 without one.
 */
#include "cl_bench.h"
#include "cl_cuda_check.h"
#include "cl_parallel.h"

#include <stdio.h>
#include <stdlib.h>

#define WARMUP          3
#define REPEATS         20
#define ROUNDS          3
#define CLOCK_WINDOW_NS 100000ull /* the clock kernel's span of %globaltimer */
#define CLOCK_SAMPLES   25        /* one a millisecond after the ceilings */

/* SM cycles and nanoseconds over one window of %globaltimer: their ratio is the clock. */
__global__ void clock_probe(unsigned long long *cycles_and_ns)
{
    unsigned long long t0, t1;
    const long long c0 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    } while (t1 - t0 < CLOCK_WINDOW_NS);
    const long long c1 = clock64();
    cycles_and_ns[0] = (unsigned long long)(c1 - c0);
    cycles_and_ns[1] = t1 - t0;
}

static double clock_mhz(unsigned long long *d_out, cudaStream_t stream)
{
    unsigned long long out[2];
    clock_probe<<<1, 1, 0, stream>>>(d_out);
    CL_LAUNCH_CHECK("clock_probe");
    CL_CUDA_CHECK(cudaMemcpyAsync(out, d_out, sizeof out, cudaMemcpyDeviceToHost, stream));
    CL_CUDA_CHECK(cudaStreamSynchronize(stream));
    return out[1] ? (double)out[0] * 1e3 / (double)out[1] : 0.0;
}

int main(int argc, char **argv)
{
    static const char *const default_sizes[] = {"25", "75", "256", "1024"};
    const char *const *sizes = argc > 1 ? (const char *const *)argv + 1 : default_sizes;
    const int n_sizes = argc > 1 ? argc - 1 : 4;
    cl_bench bench;
    cl_bench_open_device(&bench, 0);
    float *sink;
    unsigned long long *d_clock;
    CL_CUDA_CHECK(cudaMalloc(&sink, sizeof(float)));
    CL_CUDA_CHECK(cudaMalloc(&d_clock, 2 * sizeof(unsigned long long)));
    printf("%s; read-only kernel, %d warm-ups, median of %d runs, clean L2 flush before each\n",
           bench.dev.name, WARMUP, REPEATS);
    printf("%8s %6s %12s %8s %22s %8s\n", "MB", "round", "alone us", "GB/s", "after ceilings us",
           "GB/s");
    for (int s = 0; s < n_sizes; s++) {
        const size_t bytes = (size_t)atoi(sizes[s]) << 20;
        void *in;
        CL_CUDA_CHECK(cudaMalloc(&in, bytes));
        CL_CUDA_CHECK(cudaMemset(in, 0, bytes));
        cl_read_probe a = {in, bytes, sink, (unsigned)bench.dev.sm_count * 8u};
        for (int round = 1; round <= ROUNDS; round++) {
            const double alone =
                cl_time_launches(&bench, cl_launch_read_probe, &a, WARMUP, REPEATS, NULL).median_ms;
            (void)cl_measure_ceilings(&bench);
            const double after =
                cl_time_launches(&bench, cl_launch_read_probe, &a, WARMUP, REPEATS, NULL).median_ms;
            printf("%8s %6d %12.1f %8.0f %22.1f %8.0f\n", sizes[s], round, alone * 1e3,
                   (double)bytes / (alone * 1e6), after * 1e3, (double)bytes / (after * 1e6));
        }
        CL_CUDA_CHECK(cudaFree(in));
    }

    printf("SM clock, MHz: before the ceilings %.0f\n", clock_mhz(d_clock, bench.stream));
    (void)cl_measure_ceilings(&bench);
    const double end = cl_seconds();
    printf("after the ceilings (ms since they ended, MHz):");
    for (int i = 0; i < CLOCK_SAMPLES; i++) {
        while (cl_seconds() < end + 1e-3 * i)
            ;
        const double at = (cl_seconds() - end) * 1e3;
        printf(" %.1f:%.0f", at, clock_mhz(d_clock, bench.stream));
    }
    printf("\n");
    CL_CUDA_CHECK(cudaFree(sink));
    CL_CUDA_CHECK(cudaFree(d_clock));
    return cl_bench_finish(&bench);
}
