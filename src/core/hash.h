/*
 * core/hash.h - the one string hash of the library's hash tables (FNV-1a style).
 *
 * Keys come from hostile files, but the tables that use it are bounded by the context's
 * limits and resolve collisions by comparison, so a cheap hash is enough.
 */
#ifndef OM_HASH_H
#define OM_HASH_H

#include <stddef.h>
#include <stdint.h>

#define OM_HASH_SEED 1469598103934665603ull

static inline uint64_t om_hash_byte(uint64_t h, unsigned char c)
{
    return (h ^ c) * 1099511628211ull;
}

/* h extended by the bytes of s up to its NUL */
static inline uint64_t om_hash_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = om_hash_byte(h, (unsigned char)*s);
    return h;
}

static inline uint64_t om_hash_bytes(uint64_t h, const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        h = om_hash_byte(h, (unsigned char)s[i]);
    return h;
}

/* a name key: the whole string from the seed */
static inline uint64_t om_hash_name(const char *s)
{
    return om_hash_str(OM_HASH_SEED, s);
}

/* a (domain, name) key: the 0xff separator keeps ("ab","c") apart from ("a","bc") */
static inline uint64_t om_hash_key(const char *domain, const char *name)
{
    return om_hash_str(om_hash_byte(om_hash_str(OM_HASH_SEED, domain), 0xff), name);
}

#endif
