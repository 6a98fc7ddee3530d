/**
 * @file cl_parallel.h
 * @brief The host's share of a large case on every core: the inputs, the references and the checks
 * in parallel (OpenMP where the compiler has it, serially otherwise), with the same bytes and the
 * same sums on any number of threads, and one line of progress when a phase takes seconds.
 *
 * The same bytes: every input is a function of the seed and its index alone. splitmix64's state
 * after d draws is the seed plus d times its increment, so a thread starting at element i jumps
 * there in one multiply (cl_random_at(), in cl_random.h). The same sums: a reference adds fixed
 * blocks of elements in double, then adds the blocks' sums in block order, whatever thread computed
 * each block.
 *
 * Off the host where it can be: cl_make() makes a large input straight into GPU memory, piece by
 * piece through pinned staging, and a lesson takes its reference on the way; the host never holds
 * the input, and the fill costs about what the bus does.
 */
#ifndef CL_PARALLEL_H
#define CL_PARALLEL_H

#include "cl_check.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The elements in one chunk of a parallel fill or reference: big enough to amortize a hand-out. */
#define CL_CHUNK ((size_t)1 << 16)

/** The number of chunks of @p chunk items that cover @p count. */
static inline size_t cl_chunks(size_t count, size_t chunk)
{
    return (count + chunk - 1) / chunk;
}

/** The threads the parallel loops use (1 without OpenMP). */
int cl_threads(void);

/** Sets the threads the parallel loops use (the tests compare 1 with several); no-op without. */
void cl_set_threads(int threads);

/**
 * One line for a phase of host work that takes seconds, so that a large case does not look hung:
 * "filling 64.0 GiB of inputs on 16 threads (about 6 s)". The phase says how much is done with
 * cl_progress_step() (cl_parallel_for() does, after each wave). Once a quarter second has
 * passed, the time so far predicts the whole; if that is more than a few seconds, the line is
 * printed on stderr, and cl_progress_end() adds how long it took. Small cases print nothing.
 */
typedef struct {
    char what[160];   /**< what the phase does, e.g. "filling 64.0 GiB of inputs" */
    const char *hint; /**< said with the estimate, e.g. "--no-check skips it"; may be NULL */
    double total;     /**< units of work in the phase */
    double start;     /**< when it began, in seconds */
    int announced;    /**< the line has been printed */
} cl_progress;

/** Starts a phase of @p total units of work; @p what is a printf format. */
void cl_progress_begin(cl_progress *p, double total, const char *hint, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/** Says that @p done units of the phase's work are done. */
void cl_progress_step(cl_progress *p, double done);

/** Ends the phase: if its line was printed, finishes it with the time it took. */
void cl_progress_end(cl_progress *p);

/** Work on items [begin, end), chunk number begin / chunk of a cl_parallel_for(). */
typedef void (*cl_chunk_fn)(void *context, size_t begin, size_t end);

/**
 * Runs @p fn over items [0, @p count) in chunks of @p chunk, on every thread with OpenMP and in
 * order without. Chunks are handed out as threads free up (their cost varies: a check's rows, a
 * Zipf draw's search), so each must write only its own outputs: a sum is one partial per chunk,
 * added by the caller in chunk order. The chunks run in up to 64 waves; after each, @p progress
 * (begun by the caller with @p count units; may be NULL) is told, and it is ended at the last.
 */
void cl_parallel_for(size_t count, size_t chunk, cl_chunk_fn fn, void *context,
                     cl_progress *progress);

/**
 * cl_parallel_for() as one phase with its progress line: @p doing names it, with one %s for the
 * size of the @p bytes it works on, e.g. "filling %s of inputs".
 */
void cl_parallel_phase(size_t count, size_t chunk, cl_chunk_fn fn, void *context, size_t bytes,
                       const char *doing);

/** One chunk of a check, items [begin, end): the worst output among them (cl_worst_note()). */
typedef cl_worst (*cl_worst_fn)(void *context, size_t begin, size_t end);

/**
 * A check as one phase: runs @p fn over items [0, @p count) in chunks of @p chunk on every thread
 * and merges the chunks' worst outputs in chunk order, so that any number of threads finds the
 * same one. Its progress line (@p what) says that --no-check skips it.
 */
cl_worst cl_parallel_worst(size_t count, size_t chunk, cl_worst_fn fn, void *context,
                           const char *what);

/**
 * cudaMemcpy for large buffers, at the bus's speed: through two pinned staging buffers, each
 * filled (or emptied) on every host thread while the other crosses the bus (to the device, an
 * input cl_make() makes by copying). A plain cudaMemcpy
 * from pageable memory copies through the driver's own staging on one thread, at a fraction of
 * the bus's rate (and a copy into pages never touched faults each one in, on that thread). Small
 * buffers take cudaMemcpy itself; where the staging cannot be pinned, a copy to the device goes
 * piece by piece through pageable memory (cl_make()) and one from it takes cudaMemcpy. Returns once
 * the copy is done; says how it goes when it is long.
 */
void cl_copy_to_device(void *device_dst, const void *host_src, size_t bytes, const char *what);

/** The same, from the device to the host. */
void cl_copy_to_host(void *host_dst, const void *device_src, size_t bytes, const char *what);

/** Where cl_make() puts what it makes. */
typedef enum {
    CL_ON_DEVICE, /**< GPU memory: each piece crosses the bus as soon as it is made */
    CL_ON_HOST    /**< host memory, in the same pieces: what the cpu tests compare */
} cl_place;

/**
 * Makes items [@p begin, @p end) of an input where @p piece holds the items from @p first on (item
 * i at byte (i - first) * item size of it). A lesson's fill writes them there and may add them to
 * its reference on the way, while they are still in the core's cache: a sum into the partial of
 * its block, counts into shared counters by atomic integer adds. Called on every thread, one chunk
 * at a time; @p begin is a multiple of the chunk, whatever the piece.
 */
typedef void (*cl_make_fn)(void *context, void *piece, size_t first, size_t begin, size_t end);

/**
 * Makes @p count items of @p item_bytes each at @p dst without a host copy of the whole: piece by
 * piece, each made on every thread (chunks of @p chunk items) into one of two pinned staging
 * buffers while the other crosses the bus. Filling a host array first would touch every page of
 * it once to write and once to copy, and fault each in on first touch: at 64 GiB, seconds more
 * than the bus takes. The host needs only the two buffers. A small input takes one piece and
 * cudaMemcpy; so does every piece where the staging cannot be pinned. Says how it goes when long:
 * @p doing names the phase with one %s for its size, e.g. "filling %s of inputs" (" into GPU
 * memory" is added where it goes).
 */
void cl_make(void *dst, cl_place where, size_t count, size_t item_bytes, size_t chunk,
             cl_make_fn fn, void *context, const char *doing);

/**
 * Reads @p count items of @p item_bytes, @p stride items apart (1: contiguous), from @p from in GPU
 * memory (one copy) or host memory (@p where: the tests' way): a check that compares a sample of a
 * large output fetches only that sample.
 */
void cl_read(void *to, const void *from, cl_place where, size_t count, size_t item_bytes,
             size_t stride);

/** Sets the bytes of each staging piece (default 64 MiB): the tests make many small pieces. */
void cl_set_stage_bytes(size_t bytes);

/** A monotonic clock in seconds, for the phases' times. */
double cl_seconds(void);

#ifdef __cplusplus
}
#endif

#endif
