/**
 * @file launch.cu
 * @brief The launch helpers of launch.h: device checks, shared memory, SM count and clusters.
 */
#include "launch.h"

#include "cl_cuda_check.h"
#include "cl_device.h"

#include <stdio.h>
#include <stdlib.h>

void gemm_require_device(int major, int minor, int exact, int built, const char *feature)
{
    if (!built) {
        fprintf(stderr,
                "%s needs code for compute capability %d.%d, which this build left out "
                "(CMAKE_CUDA_ARCHITECTURES): skipped\n",
                feature, major, minor);
        exit(77);
    }
    cl_require_compute_capability(major, minor, exact, feature);
}

/* A version launches at most a few kernels: a short table of what each was allowed so far. */
#define MAX_KERNELS 8

void tc_allow_shared(const void *kernel, size_t bytes)
{
    static struct {
        const void *kernel;
        size_t allowed;
    } seen[MAX_KERNELS];
    static int count = 0;
    int i = 0;
    while (i < count && seen[i].kernel != kernel)
        i++;
    if (i == count) {
        if (count == MAX_KERNELS)
            abort(); /* a version with more kernels than this table: raise MAX_KERNELS */
        seen[count].kernel = kernel, seen[count].allowed = 0;
        count++;
    }
    cl_allow_shared_bytes(kernel, bytes, &seen[i].allowed);
}

int tc_sm_count(void)
{
    static int sms = 0;
    if (sms == 0) {
        int device;
        CL_CUDA_CHECK(cudaGetDevice(&device));
        CL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    }
    return sms;
}

void tc_cluster_launch_init(tc_cluster_launch *launch, const void *kernel, int cluster, int threads,
                            size_t shared_bytes, cudaStream_t stream)
{
    static struct {
        const void *kernel;
        int clusters;
    } seen[MAX_KERNELS];
    static int count = 0;
    tc_allow_shared(kernel, shared_bytes);
    launch->cluster_shape = cudaLaunchAttribute{};
    launch->cluster_shape.id = cudaLaunchAttributeClusterDimension;
    launch->cluster_shape.val.clusterDim.x = (unsigned)cluster;
    launch->cluster_shape.val.clusterDim.y = 1, launch->cluster_shape.val.clusterDim.z = 1;
    launch->config = cudaLaunchConfig_t{};
    launch->config.gridDim = dim3((unsigned)cluster), launch->config.blockDim = dim3(threads);
    launch->config.dynamicSmemBytes = shared_bytes, launch->config.stream = stream;
    launch->config.attrs = &launch->cluster_shape, launch->config.numAttrs = 1;
    int i = 0;
    while (i < count && seen[i].kernel != kernel)
        i++;
    if (i == count) { /* the answer depends on the kernel, its shape and the device alone */
        if (count == MAX_KERNELS)
            abort();
        seen[count].kernel = kernel;
        CL_CUDA_CHECK(
            cudaOccupancyMaxActiveClusters(&seen[count].clusters, kernel, &launch->config));
        count++;
    }
    launch->resident_clusters = seen[i].clusters;
}

void tc_cluster_grid(tc_cluster_launch *launch, long long units)
{
    const unsigned cluster = launch->cluster_shape.val.clusterDim.x;
    const long long clusters =
        units < launch->resident_clusters ? units : launch->resident_clusters;
    launch->config.gridDim = dim3((unsigned)(cluster * clusters));
}
