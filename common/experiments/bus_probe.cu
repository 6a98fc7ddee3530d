/**
 * @file bus_probe.cu
 * @brief The bus's rate, the yardstick of the host's share at large sizes: a copy from pinned host
 * memory to the GPU and back, of @p MiB (default 1024), median of a few, timed with events. A case
 * whose inputs take t seconds to cross at this rate cannot be set up in less; tools/host-bench.sh
 * prints it above its table. Needs a GPU; exits 77 without one.
 *
 * usage: bus_probe [MiB]
 */
#include "cl_cuda_check.h"
#include "cl_device.h"

#include <stdio.h>
#include <stdlib.h>

#define REPEATS 5

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median seconds of REPEATS copies of @p bytes in direction @p kind. */
static double median_copy(void *to, const void *from, size_t bytes, cudaMemcpyKind kind)
{
    double seconds[REPEATS];
    cudaEvent_t start, stop;
    CL_CUDA_CHECK(cudaEventCreate(&start));
    CL_CUDA_CHECK(cudaEventCreate(&stop));
    CL_CUDA_CHECK(cudaMemcpy(to, from, bytes, kind)); /* warm-up */
    for (int r = 0; r < REPEATS; r++) {
        float ms;
        CL_CUDA_CHECK(cudaEventRecord(start, 0));
        CL_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, kind, 0));
        CL_CUDA_CHECK(cudaEventRecord(stop, 0));
        CL_CUDA_CHECK(cudaEventSynchronize(stop));
        CL_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        seconds[r] = ms * 1e-3;
    }
    CL_CUDA_CHECK(cudaEventDestroy(start));
    CL_CUDA_CHECK(cudaEventDestroy(stop));
    qsort(seconds, REPEATS, sizeof seconds[0], compare_doubles);
    return seconds[REPEATS / 2];
}

int main(int argc, char **argv)
{
    const size_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 1024;
    if (mib == 0) {
        fprintf(stderr, "bus_probe: %s: expected a size in MiB\n", argv[1]);
        return 2;
    }
    cl_device_info dev;
    cl_device_open(0, &dev);
    const size_t bytes = mib << 20;
    void *host, *device;
    CL_CUDA_CHECK(cudaMallocHost(&host, bytes));
    CL_CUDA_CHECK(cudaMalloc(&device, bytes));
    CL_CUDA_CHECK(cudaMemset(device, 1, bytes));
    const double up = median_copy(device, host, bytes, cudaMemcpyHostToDevice);
    const double down = median_copy(host, device, bytes, cudaMemcpyDeviceToHost);
    printf("bus: %.1f GB/s to the GPU, %.1f GB/s from it (pinned, %zu MiB, median of %d, %s)\n",
           (double)bytes / up * 1e-9, (double)bytes / down * 1e-9, mib, REPEATS, dev.name);
    CL_CUDA_CHECK(cudaFreeHost(host));
    CL_CUDA_CHECK(cudaFree(device));
    return 0;
}
