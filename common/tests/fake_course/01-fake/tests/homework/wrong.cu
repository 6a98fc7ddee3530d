/** @file wrong.cu @brief v3: v2 with a wrong result (the fake harness fails its check). */
#include "fake.h"
double fake_speed(void)
{
    return 3.0;
}
