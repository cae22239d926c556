/* Portable bit helpers for the fourcards core. */
#ifndef FOURCARDS_BITS_H
#define FOURCARDS_BITS_H

#include <stdint.h>

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif

static inline int fc_popcount64(uint64_t x)
{
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__)))
    /* a hardware instruction (or the best the target has) */
    return __builtin_popcountll(x);
#else
    /* portable: x86-64 without -mpopcnt would call a libgcc routine; inline SWAR is faster */
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

static inline int fc_ctz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#elif defined(_MSC_VER) && defined(_M_X64)
    unsigned long index;
    _BitScanForward64(&index, x);
    return (int)index;
#else
    int n = 0;
    while (!(x & 1ULL)) { x >>= 1; n++; }
    return n;
#endif
}

#endif
