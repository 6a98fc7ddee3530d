/**
 * @file cl_random.h
 * @brief The one pseudo-random generator the lessons' inputs come from.
 */
#ifndef CL_RANDOM_H
#define CL_RANDOM_H

#include <stdint.h>

/**
 * splitmix64: a fast, well-mixed generator whose stream depends only on the seed, so a lesson's
 * inputs are the same on every machine. Advances @p state and returns 64 random bits.
 */
static inline uint64_t cl_next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/**
 * splitmix64's state after @p draws draws from @p seed (cl_next_random()): the state only
 * advances by a fixed increment, so jumping ahead is one multiply, and a chunk starting at element
 * i of a fill that takes d draws per element starts from cl_random_at(seed, i * d).
 */
static inline uint64_t cl_random_at(uint64_t seed, uint64_t draws)
{
    return seed + draws * 0x9E3779B97F4A7C15ull;
}

#endif
