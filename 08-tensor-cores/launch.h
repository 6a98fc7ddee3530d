/**
 * @file launch.h
 * @brief What every version's launch repeats and no step changes, said once: the GPU a version
 * needs, the shared memory it asks for, the SMs it fills and the clusters it launches. A version's
 * host code then shows only what its step changes (launch.cu holds the bodies).
 */
#ifndef LAUNCH_H
#define LAUNCH_H

#include <cuda_runtime.h>
#include <stddef.h>

/* Hopper's own instructions (wgmma, TMA, setmaxnreg) exist only in code for sm_90a, which the
   build makes for the versions the description marks gpu=sm_90a (CL_HAS_SM90A): without it their
   kernels are empty and the program skips. */
#ifdef CL_HAS_SM90A
#define BUILT_FOR_SM90A 1
#else
#define BUILT_FOR_SM90A 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Exits with 77 (skipped) and one line unless the device in use has compute capability
 * @p major.@p minor or later; with @p exact, that one alone (code built for sm_90a runs on 9.0
 * only); and, with @p built 0, always (the build left the needed target out). Looks once.
 */
void gemm_require_device(int major, int minor, int exact, int built, const char *feature);

/** Lets @p kernel launch with @p bytes of dynamic shared memory (past 48 KB a kernel must ask);
 * asks the driver once per kernel, not on every timed call. */
void tc_allow_shared(const void *kernel, size_t bytes);

/** The SMs of the device in use (asked once). */
int tc_sm_count(void);

/** A launch in clusters along x (cudaLaunchKernelEx(&launch.config, kernel, args...)). */
typedef struct {
    cudaLaunchConfig_t config;
    cudaLaunchAttribute cluster_shape; /* config.attrs points here (a copy must repoint it) */
    int resident_clusters;             /* clusters of this kernel that the GPU runs at once */
} tc_cluster_launch;

/**
 * Sets up @p launch for @p kernel in clusters of @p cluster blocks of @p threads threads and
 * @p shared_bytes of dynamic shared memory each (allowed here), and counts the clusters that run
 * at once: a GPC holds a whole cluster, so that may be fewer than SMs / cluster. The count is
 * asked once per kernel. The grid is one cluster until tc_cluster_grid() sets it.
 */
void tc_cluster_launch_init(tc_cluster_launch *launch, const void *kernel, int cluster, int threads,
                            size_t shared_bytes, cudaStream_t stream);

/** One cluster per unit of work, never more clusters than run at once (a persistent grid). */
void tc_cluster_grid(tc_cluster_launch *launch, long long units);

#ifdef __cplusplus
}
#endif

#endif
