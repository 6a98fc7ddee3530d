/** @file fake.h @brief The fake lesson's problem: a version says how fast it is. */
#ifndef FAKE_H
#define FAKE_H
#ifdef __cplusplus
extern "C" {
#endif
double fake_speed(void);
#ifdef __cplusplus
}
#endif
#endif
