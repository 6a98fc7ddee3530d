/**
 * @file cl_parallel.c
 * @brief Threads, progress lines and the clock for the host's share of a large case.
 */
#define _POSIX_C_SOURCE 199309L
#include "cl_parallel.h"

#include "cl_cuda_check.h"
#include "cl_device.h"

#include <cuda_runtime_api.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* A phase announces itself after this long, when it predicts more than CL_ANNOUNCE_SECONDS. */
#define CL_ESTIMATE_AFTER   0.25
#define CL_ANNOUNCE_SECONDS 3.0

int cl_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

void cl_set_threads(int threads)
{
#ifdef _OPENMP
    omp_set_num_threads(threads > 0 ? threads : 1);
#else
    (void)threads;
#endif
}

void cl_parallel_for(size_t count, size_t chunk, cl_chunk_fn fn, void *context,
                     cl_progress *progress)
{
    const size_t chunks = cl_chunks(count, chunk);
    /* waves of at least four chunks per thread, so that each keeps every thread busy; at most 64,
       so that a long phase reports its progress early */
    const size_t per_wave = 4 * (size_t)cl_threads();
    size_t waves = chunks / per_wave;
    waves = waves < 1 ? 1 : waves > 64 ? 64 : waves;
    for (size_t wave = 0; wave < waves; wave++) {
        const size_t first = chunks * wave / waves, last = chunks * (wave + 1) / waves;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic) if (last - first > 1)
#endif
        for (size_t c = first; c < last; c++) {
            const size_t begin = c * chunk;
            fn(context, begin, count - begin < chunk ? count : begin + chunk);
        }
        if (progress != NULL)
            cl_progress_step(progress, (double)(last * chunk < count ? last * chunk : count));
    }
    if (progress != NULL)
        cl_progress_end(progress);
}

double cl_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void cl_progress_begin(cl_progress *p, double total, const char *hint, const char *what, ...)
{
    va_list args;
    va_start(args, what);
    vsnprintf(p->what, sizeof p->what, what, args);
    va_end(args);
    p->hint = hint;
    p->total = total;
    p->start = cl_seconds();
    p->announced = 0;
}

void cl_progress_step(cl_progress *p, double done)
{
    if (p->announced || done <= 0.0)
        return;
    const double elapsed = cl_seconds() - p->start;
    if (elapsed < CL_ESTIMATE_AFTER)
        return;
    const double estimate = elapsed * p->total / done;
    if (estimate > CL_ANNOUNCE_SECONDS) {
        const int threads = cl_threads();
        fprintf(stderr, "%s on %d thread%s (about %.0f s%s%s)...", p->what, threads,
                threads == 1 ? "" : "s", estimate, p->hint ? "; " : "", p->hint ? p->hint : "");
        fflush(stderr);
        p->announced = 1;
    } else {
        p->announced = -1; /* short: nothing to say, now or at the end */
    }
}

void cl_progress_end(cl_progress *p)
{
    if (p->announced == 1)
        fprintf(stderr, " done in %.1f s\n", cl_seconds() - p->start);
}

void cl_parallel_phase(size_t count, size_t chunk, cl_chunk_fn fn, void *context, size_t bytes,
                       const char *doing)
{
    char size[32], what[160];
    cl_format_bytes(bytes, size, sizeof size);
    snprintf(what, sizeof what, doing, size);
    cl_progress progress;
    cl_progress_begin(&progress, (double)count, NULL, "%s", what);
    cl_parallel_for(count, chunk, fn, context, &progress);
}

typedef struct {
    cl_worst_fn fn;
    void *context;
    size_t chunk;
    cl_worst *worst; /* one per chunk */
} worst_args;

static void worst_chunk(void *context, size_t begin, size_t end)
{
    const worst_args *a = (const worst_args *)context;
    a->worst[begin / a->chunk] = a->fn(a->context, begin, end);
}

cl_worst cl_parallel_worst(size_t count, size_t chunk, cl_worst_fn fn, void *context,
                           const char *what)
{
    const size_t chunks = cl_chunks(count, chunk);
    worst_args a = {fn, context, chunk, (cl_worst *)calloc(chunks ? chunks : 1, sizeof(cl_worst))};
    if (a.worst == NULL)
        abort();
    cl_progress progress;
    cl_progress_begin(&progress, (double)count, "--no-check skips it", "%s", what);
    cl_parallel_for(count, chunk, worst_chunk, &a, &progress);
    cl_worst result = {0};
    for (size_t c = 0; c < chunks; c++)
        cl_worst_merge(&result, &a.worst[c]);
    free(a.worst);
    return result;
}

/* Each staging buffer: big enough that a copy's fixed cost is nothing beside its transfer. */
static size_t stage_bytes = (size_t)64 << 20;
#define CL_COPY_CHUNK ((size_t)1 << 20) /* bytes per thread's memcpy chunk */

void cl_set_stage_bytes(size_t bytes)
{
    stage_bytes = bytes > 0 ? bytes : 1;
}

typedef struct {
    char *to;
    const char *from;
} memcpy_args;

static void memcpy_chunk(void *context, size_t begin, size_t end)
{
    const memcpy_args *m = (const memcpy_args *)context;
    memcpy(m->to + begin, m->from + begin, end - begin);
}

static void parallel_memcpy(void *to, const void *from, size_t bytes)
{
    memcpy_args m = {(char *)to, (const char *)from};
    cl_parallel_for(bytes, CL_COPY_CHUNK, memcpy_chunk, &m, NULL);
}

/* Returns 0, having copied nothing, where the pinned staging cannot be had (a machine that limits
   pinned memory): the caller copies with cudaMemcpy instead. */
static int staged_copy(char *dst, const char *src, size_t bytes, int to_device, const char *what)
{
    char *stage[2] = {NULL, NULL};
    if (cudaMallocHost((void **)&stage[0], stage_bytes) != cudaSuccess ||
        cudaMallocHost((void **)&stage[1], stage_bytes) != cudaSuccess) {
        if (stage[0] != NULL)
            CL_CUDA_CHECK(cudaFreeHost(stage[0]));
        (void)cudaGetLastError(); /* the failed allocation's error: not sticky, cleared */
        return 0;
    }
    cudaEvent_t done[2];
    cudaStream_t stream;
    CL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (int s = 0; s < 2; s++)
        CL_CUDA_CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
    char size[32];
    cl_format_bytes(bytes, size, sizeof size);
    cl_progress progress;
    cl_progress_begin(&progress, (double)bytes, NULL, "copying %s of %s %s the GPU", size, what,
                      to_device ? "to" : "from");
    const size_t pieces = cl_chunks(bytes, stage_bytes);
    for (size_t i = 0; i <= pieces; i++) {
        /* to the device: fill stage i % 2 (once its last transfer is done), send it; from the
           device: fetch piece i into stage i % 2, then empty piece i - 1's stage meanwhile */
        if (i < pieces) {
            const size_t offset = i * stage_bytes;
            const size_t length = bytes - offset < stage_bytes ? bytes - offset : stage_bytes;
            char *buffer = stage[i % 2];
            CL_CUDA_CHECK(cudaEventSynchronize(done[i % 2]));
            if (to_device) {
                parallel_memcpy(buffer, src + offset, length);
                CL_CUDA_CHECK(
                    cudaMemcpyAsync(dst + offset, buffer, length, cudaMemcpyHostToDevice, stream));
            } else {
                CL_CUDA_CHECK(
                    cudaMemcpyAsync(buffer, src + offset, length, cudaMemcpyDeviceToHost, stream));
            }
            CL_CUDA_CHECK(cudaEventRecord(done[i % 2], stream));
        }
        if (!to_device && i > 0) {
            const size_t offset = (i - 1) * stage_bytes;
            const size_t length = bytes - offset < stage_bytes ? bytes - offset : stage_bytes;
            CL_CUDA_CHECK(cudaEventSynchronize(done[(i - 1) % 2]));
            parallel_memcpy(dst + offset, stage[(i - 1) % 2], length);
        }
        cl_progress_step(&progress, (double)(i * stage_bytes < bytes ? i * stage_bytes : bytes));
    }
    CL_CUDA_CHECK(cudaStreamSynchronize(stream));
    cl_progress_end(&progress);
    for (int s = 0; s < 2; s++) {
        CL_CUDA_CHECK(cudaFreeHost(stage[s]));
        CL_CUDA_CHECK(cudaEventDestroy(done[s]));
    }
    CL_CUDA_CHECK(cudaStreamDestroy(stream));
    return 1;
}

void cl_copy_to_device(void *device_dst, const void *host_src, size_t bytes, const char *what)
{
    if (bytes <= stage_bytes ||
        !staged_copy((char *)device_dst, (const char *)host_src, bytes, 1, what))
        CL_CUDA_CHECK(cudaMemcpy(device_dst, host_src, bytes, cudaMemcpyHostToDevice));
}

void cl_copy_to_host(void *host_dst, const void *device_src, size_t bytes, const char *what)
{
    if (bytes <= stage_bytes ||
        !staged_copy((char *)host_dst, (const char *)device_src, bytes, 0, what))
        CL_CUDA_CHECK(cudaMemcpy(host_dst, device_src, bytes, cudaMemcpyDeviceToHost));
}

typedef struct {
    cl_make_fn fn;
    void *context;
    char *piece;
    size_t first; /* the item at the piece's first byte */
} piece_args;

static void make_chunk(void *context, size_t begin, size_t end)
{
    const piece_args *a = (const piece_args *)context;
    a->fn(a->context, a->piece, a->first, a->first + begin, a->first + end);
}

void cl_make(void *dst, cl_place where, size_t count, size_t item_bytes, size_t chunk,
             cl_make_fn fn, void *context, const char *doing)
{
    if (count == 0)
        return;
    /* whole chunks per piece, so that every chunk starts at a multiple of chunk */
    size_t piece_items = stage_bytes / item_bytes / chunk * chunk;
    piece_items = piece_items == 0 ? chunk : piece_items;
    piece_items = piece_items > count ? count : piece_items;
    const size_t pieces = cl_chunks(count, piece_items);
    char *stage[2] = {NULL, NULL};
    int pinned = 0;
    if (where == CL_ON_DEVICE && pieces > 1) {
        pinned = cudaMallocHost((void **)&stage[0], piece_items * item_bytes) == cudaSuccess &&
                 cudaMallocHost((void **)&stage[1], piece_items * item_bytes) == cudaSuccess;
        if (!pinned) { /* a machine that limits pinned memory: one pageable piece at a time */
            if (stage[0] != NULL)
                CL_CUDA_CHECK(cudaFreeHost(stage[0]));
            (void)cudaGetLastError(); /* the failed allocation's error: not sticky, cleared */
        }
    }
    if (where == CL_ON_DEVICE && !pinned) {
        stage[0] = (char *)malloc(piece_items * item_bytes);
        if (stage[0] == NULL)
            abort();
    }
    cudaEvent_t done[2] = {NULL, NULL};
    cudaStream_t stream = NULL;
    if (pinned) {
        CL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        for (int s = 0; s < 2; s++)
            CL_CUDA_CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
    }
    char size[32], what[160];
    cl_format_bytes(count * item_bytes, size, sizeof size);
    snprintf(what, sizeof what, doing, size);
    cl_progress progress;
    cl_progress_begin(&progress, (double)count, NULL, "%s", what);
    for (size_t i = 0; i < pieces; i++) {
        const size_t first = i * piece_items;
        const size_t length = count - first < piece_items ? count - first : piece_items;
        char *const target = (char *)dst + first * item_bytes;
        /* on the host the piece is its place in dst; on the device, stage i % 2 once its last
           transfer is done, sent as soon as it is made while the next piece is made in the other */
        piece_args a = {fn, context, where == CL_ON_HOST ? target : stage[pinned ? i % 2 : 0],
                        first};
        if (pinned)
            CL_CUDA_CHECK(cudaEventSynchronize(done[i % 2]));
        cl_parallel_for(length, chunk, make_chunk, &a, NULL);
        if (pinned) {
            CL_CUDA_CHECK(cudaMemcpyAsync(target, a.piece, length * item_bytes,
                                          cudaMemcpyHostToDevice, stream));
            CL_CUDA_CHECK(cudaEventRecord(done[i % 2], stream));
        } else if (where == CL_ON_DEVICE) {
            CL_CUDA_CHECK(cudaMemcpy(target, a.piece, length * item_bytes, cudaMemcpyHostToDevice));
        }
        cl_progress_step(&progress, (double)(first + length));
    }
    if (pinned) {
        CL_CUDA_CHECK(cudaStreamSynchronize(stream));
        for (int s = 0; s < 2; s++) {
            CL_CUDA_CHECK(cudaFreeHost(stage[s]));
            CL_CUDA_CHECK(cudaEventDestroy(done[s]));
        }
        CL_CUDA_CHECK(cudaStreamDestroy(stream));
    } else {
        free(stage[0]);
    }
    cl_progress_end(&progress);
}
