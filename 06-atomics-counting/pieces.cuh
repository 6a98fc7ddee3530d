/**
 * @file pieces.cuh
 * @brief The list of pieces that v8 to v17 hand from their first kernel to their second (v8's
 * plumbing, reused unchanged): long containers cut into pieces of PIECE floats, each summed by one
 * warp of the second kernel (count_pieces, in each version file); a container of several pieces is
 * finished in its slot (slots.cuh) by the warp that draws the last ticket. The list, the pieces and
 * the slots live in the workspace, which the kernels leave zeroed; how many pieces it must hold
 * depends on the longest container a version's first kernel sums itself (`short_max`).
 */
#ifndef PIECES_CUH
#define PIECES_CUH

#include "slots.cuh"

#define PIECE     512 /* floats per piece: one warp, 16 loads per lane */
#define FULL_MASK 0xffffffffu

/* The second kernel's work list, in the workspace (zeroed once; the kernels leave it zeroed). */
typedef struct {
    unsigned long long pieces; /* pieces listed so far */
    unsigned blocks_done;      /* the second kernel's blocks that have finished */
    unsigned long long over;   /* v17: the count, kept here until the pieces kernel moves it out */
} piece_list;

/* The most pieces a problem can list: every container longer than short_max, cut every PIECE. */
static size_t max_pieces(size_t total, size_t short_max)
{
    return total / (short_max + 1) + total / PIECE + 1;
}

/* Where the list lives in the workspace: its counters, then per piece its container and its
   container's first piece, then (indexed by that first piece) the slot of a container cut into
   several. */
typedef struct {
    piece_list *list;
    size_t *piece_container, *piece_first;
    float *slot_sums;
    unsigned *slot_tickets;
} piece_workspace;

static size_t piece_workspace_bytes(size_t total, size_t short_max)
{
    return 256 +
           max_pieces(total, short_max) * (2 * sizeof(size_t) + sizeof(float) + sizeof(unsigned));
}

static piece_workspace piece_workspace_at(void *workspace, size_t total, size_t short_max)
{
    const size_t most = max_pieces(total, short_max);
    piece_workspace w;
    w.list = (piece_list *)workspace;
    w.piece_container = (size_t *)((char *)workspace + 256);
    w.piece_first = w.piece_container + most;
    w.slot_sums = (float *)(w.piece_first + most);
    w.slot_tickets = (unsigned *)(w.slot_sums + most);
    return w;
}

#endif
