/** @file v1_slow.cu @brief v1: the slow one. */
#include "fake.h"
double fake_speed(void)
{
    return 1.0;
}
