/** @file baseline_lib.cu @brief The library. */
#include "fake.h"
double fake_speed(void)
{
    return 1.5;
}
