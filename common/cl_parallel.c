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

/* Two pinned buffers, one filled (or emptied) on the host while the other crosses the bus, with the
   stream the copies go in and an event per buffer that says its last copy is done. */
typedef struct {
    char *buffer[2];
    cudaEvent_t done[2];
    cudaStream_t stream;
} staging;

/* Returns 0, having kept nothing, where two buffers of @p bytes cannot be pinned (a machine that
   limits pinned memory): the caller copies with cudaMemcpy instead. */
static int staging_open(staging *s, size_t bytes)
{
    s->buffer[0] = s->buffer[1] = NULL;
    if (cudaMallocHost((void **)&s->buffer[0], bytes) != cudaSuccess ||
        cudaMallocHost((void **)&s->buffer[1], bytes) != cudaSuccess) {
        if (s->buffer[0] != NULL)
            CL_CUDA_CHECK(cudaFreeHost(s->buffer[0]));
        (void)cudaGetLastError(); /* the failed allocation's error: not sticky, cleared */
        return 0;
    }
    CL_CUDA_CHECK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    for (int b = 0; b < 2; b++)
        CL_CUDA_CHECK(cudaEventCreateWithFlags(&s->done[b], cudaEventDisableTiming));
    return 1;
}

/* Waits for the last copy, then lets the buffers go. */
static void staging_close(staging *s)
{
    CL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    for (int b = 0; b < 2; b++) {
        CL_CUDA_CHECK(cudaFreeHost(s->buffer[b]));
        CL_CUDA_CHECK(cudaEventDestroy(s->done[b]));
    }
    CL_CUDA_CHECK(cudaStreamDestroy(s->stream));
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
    staging stage;
    const int pinned =
        where == CL_ON_DEVICE && pieces > 1 && staging_open(&stage, piece_items * item_bytes);
    char *pageable = NULL; /* one piece at a time, where nothing is pinned */
    if (where == CL_ON_DEVICE && !pinned &&
        (pageable = (char *)malloc(piece_items * item_bytes)) == NULL)
        abort();
    char size[32], what[160];
    cl_format_bytes(count * item_bytes, size, sizeof size);
    snprintf(what, sizeof what, doing, size);
    cl_progress progress;
    cl_progress_begin(&progress, (double)count, NULL, "%s%s", what,
                      where == CL_ON_DEVICE ? " into GPU memory" : "");
    for (size_t i = 0; i < pieces; i++) {
        const size_t first = i * piece_items;
        const size_t length = count - first < piece_items ? count - first : piece_items;
        char *const target = (char *)dst + first * item_bytes;
        /* on the host the piece is its place in dst; on the device, buffer i % 2 once its last
           copy is done, sent as soon as it is made while the next piece is made in the other */
        piece_args a = {fn, context,
                        where == CL_ON_HOST ? target
                        : pinned            ? stage.buffer[i % 2]
                                            : pageable,
                        first};
        if (pinned)
            CL_CUDA_CHECK(cudaEventSynchronize(stage.done[i % 2]));
        cl_parallel_for(length, chunk, make_chunk, &a, NULL);
        if (pinned) {
            CL_CUDA_CHECK(cudaMemcpyAsync(target, a.piece, length * item_bytes,
                                          cudaMemcpyHostToDevice, stage.stream));
            CL_CUDA_CHECK(cudaEventRecord(stage.done[i % 2], stage.stream));
        } else if (where == CL_ON_DEVICE) {
            CL_CUDA_CHECK(cudaMemcpy(target, a.piece, length * item_bytes, cudaMemcpyHostToDevice));
        }
        cl_progress_step(&progress, (double)(first + length));
    }
    if (pinned)
        staging_close(&stage);
    free(pageable);
    cl_progress_end(&progress);
}

/* A copy to the device is an input made by copying it: bytes [begin, end) of the source. */
static void copy_piece(void *context, void *piece, size_t first, size_t begin, size_t end)
{
    memcpy((char *)piece + (begin - first), (const char *)context + begin, end - begin);
}

void cl_copy_to_device(void *device_dst, const void *host_src, size_t bytes, const char *what)
{
    if (bytes <= stage_bytes) {
        CL_CUDA_CHECK(cudaMemcpy(device_dst, host_src, bytes, cudaMemcpyHostToDevice));
        return;
    }
    char doing[160];
    snprintf(doing, sizeof doing, "copying %%s of %s", what);
    cl_make(device_dst, CL_ON_DEVICE, bytes, 1, CL_COPY_CHUNK, copy_piece, (void *)host_src, doing);
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

void cl_copy_to_host(void *host_dst, const void *device_src, size_t bytes, const char *what)
{
    staging stage;
    if (bytes <= stage_bytes || !staging_open(&stage, stage_bytes)) {
        CL_CUDA_CHECK(cudaMemcpy(host_dst, device_src, bytes, cudaMemcpyDeviceToHost));
        return;
    }
    char size[32];
    cl_format_bytes(bytes, size, sizeof size);
    cl_progress progress;
    cl_progress_begin(&progress, (double)bytes, NULL, "copying %s of %s from the GPU", size, what);
    const size_t pieces = cl_chunks(bytes, stage_bytes);
    for (size_t i = 0; i <= pieces; i++) {
        /* fetch piece i into buffer i % 2, then empty piece i - 1's buffer on every thread
           meanwhile */
        if (i < pieces) {
            const size_t offset = i * stage_bytes;
            const size_t length = bytes - offset < stage_bytes ? bytes - offset : stage_bytes;
            CL_CUDA_CHECK(cudaEventSynchronize(stage.done[i % 2]));
            CL_CUDA_CHECK(cudaMemcpyAsync(stage.buffer[i % 2], (const char *)device_src + offset,
                                          length, cudaMemcpyDeviceToHost, stage.stream));
            CL_CUDA_CHECK(cudaEventRecord(stage.done[i % 2], stage.stream));
        }
        if (i > 0) {
            const size_t offset = (i - 1) * stage_bytes;
            const size_t length = bytes - offset < stage_bytes ? bytes - offset : stage_bytes;
            CL_CUDA_CHECK(cudaEventSynchronize(stage.done[(i - 1) % 2]));
            memcpy_args m = {(char *)host_dst + offset, stage.buffer[(i - 1) % 2]};
            cl_parallel_for(length, CL_COPY_CHUNK, memcpy_chunk, &m, NULL);
        }
        cl_progress_step(&progress, (double)(i * stage_bytes < bytes ? i * stage_bytes : bytes));
    }
    staging_close(&stage);
    cl_progress_end(&progress);
}

void cl_read(void *to, const void *from, cl_place where, size_t count, size_t item_bytes,
             size_t stride)
{
    if (where == CL_ON_DEVICE && (stride == 1 || count == 1)) {
        CL_CUDA_CHECK(cudaMemcpy(to, from, count * item_bytes, cudaMemcpyDeviceToHost));
        return;
    }
    if (where == CL_ON_DEVICE) { /* one copy of count rows, one item each */
        CL_CUDA_CHECK(cudaMemcpy2D(to, item_bytes, from, stride * item_bytes, item_bytes, count,
                                   cudaMemcpyDeviceToHost));
        return;
    }
    for (size_t i = 0; i < count; i++)
        memcpy((char *)to + i * item_bytes, (const char *)from + i * stride * item_bytes,
               item_bytes);
}
