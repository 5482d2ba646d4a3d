/* SPDX-License-Identifier: MIT */
/* CS_API marks what libchainsim (and libchainsim-gsp) export: the functions of
 * these public headers. Everything else is built hidden (-fvisibility=hidden)
 * and stays inside the library. */
#ifndef CHAINSIM_API_H
#define CHAINSIM_API_H

#if defined(__GNUC__)
#define CS_API __attribute__((visibility("default")))
#else
#define CS_API
#endif

#endif
