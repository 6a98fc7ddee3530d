/**
 * @file slots.cuh
 * @brief A container summed in pieces by several blocks or warps (v7 on): each adds its piece to
 * the container's slot and draws a ticket; the one that draws the last ticket has the whole sum.
 */
#ifndef SLOTS_CUH
#define SLOTS_CUH

/* Adds `piece` into slot `slot` of a container summed by `contributors` blocks or warps, then draws
   a ticket. The one with the last ticket reads the total, resets the slot for the next call and
   returns whether the container is over the limit; the others return 0. */
static __device__ int finish_in_slot(float *slot_sums, unsigned *slot_tickets, size_t slot,
                                     unsigned contributors, float piece, float limit)
{
    atomicAdd(&slot_sums[slot], piece);
    __threadfence(); /* the piece is in L2 before the ticket says so */
    if (atomicAdd(&slot_tickets[slot], 1u) != contributors - 1)
        return 0;
    __threadfence();
    const float total = atomicExch(&slot_sums[slot], 0.0f);
    slot_tickets[slot] = 0;
    return total > limit;
}

#endif
