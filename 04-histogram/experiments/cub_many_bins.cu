/**
 * @file cub_many_bins.cu
 * @brief Standalone reproducer: cub::DeviceHistogram::HistogramEven with many bins, no harness.
 *
 * usage: cub_many_bins N BINS   (n values spread over [0, BINS), 32-bit counters)
 * Prints one line: ok, wrong (a count differs from the CPU's) or the CUDA error, with the grid CUB
 * chose, as occupancy × SMs (its limit) and tiles. Exit 0 ok, 1 wrong, 3 CUDA error. Run by
 * experiments/gpu-extras.sh over a range of bin counts, and under compute-sanitizer at the first failing
 * one: the page's "what the libraries get wrong" quotes the result.
 */
#include <cub/device/device_histogram.cuh>

#include <stdio.h>
#include <stdlib.h>

static int fail(cudaError_t err, const char *what, unsigned long long n, int bins)
{
    printf("n=%llu bins=%d: %s: %s\n", n, bins, what, cudaGetErrorString(err));
    return 3;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: cub_many_bins N BINS\n");
        return 2;
    }
    const unsigned long long n = strtoull(argv[1], NULL, 0);
    const int bins = atoi(argv[2]);
    if (n == 0 || bins < 1) {
        fprintf(stderr, "cub_many_bins: N and BINS must be at least 1\n");
        return 2;
    }
    unsigned *values = (unsigned *)malloc(n * sizeof *values);
    unsigned *expected = (unsigned *)calloc((size_t)bins, sizeof *expected);
    unsigned *got = (unsigned *)malloc((size_t)bins * sizeof *got);
    unsigned long long state = 12345;
    for (unsigned long long i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        values[i] = (unsigned)((state >> 33) % (unsigned long long)bins);
        expected[values[i]]++;
    }
    unsigned *d_values, *d_hist;
    void *d_temp = NULL;
    size_t temp_bytes = 0;
    cudaError_t err;
    if ((err = cudaMalloc(&d_values, n * sizeof *values)) != cudaSuccess ||
        (err = cudaMalloc(&d_hist, (size_t)bins * sizeof *got)) != cudaSuccess ||
        (err = cudaMemcpy(d_values, values, n * sizeof *values, cudaMemcpyHostToDevice)) != 0)
        return fail(err, "setup", n, bins);
    err = cub::DeviceHistogram::HistogramEven(NULL, temp_bytes, d_values, d_hist, bins + 1, 0u,
                                              (unsigned)bins, (long long)n);
    if (err != cudaSuccess || (err = cudaMalloc(&d_temp, temp_bytes)) != cudaSuccess)
        return fail(err, "temporary storage", n, bins);
    err = cub::DeviceHistogram::HistogramEven(d_temp, temp_bytes, d_values, d_hist, bins + 1, 0u,
                                              (unsigned)bins, (long long)n);
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    if (err != cudaSuccess)
        return fail(err, "HistogramEven", n, bins);
    if ((err = cudaMemcpy(got, d_hist, (size_t)bins * sizeof *got, cudaMemcpyDeviceToHost)) != 0)
        return fail(err, "copy back", n, bins);
    int wrong = 0;
    for (int b = 0; b < bins; b++)
        wrong += got[b] != expected[b];
    printf("n=%llu bins=%d: %s (%d bins differ), temporary storage %zu bytes = %.1f x bins x 4\n",
           n, bins, wrong ? "wrong" : "ok", wrong, temp_bytes,
           (double)temp_bytes / (4.0 * (double)bins));
    return wrong ? 1 : 0;
}
