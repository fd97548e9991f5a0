/*
 * policy/model_path.c - the spelling of a model path that waivers and baselines match.
 *
 * `models/a.onnx`, `./models/a.onnx`, `models//a.onnx` and `/work/repo/models/a.onnx` (run
 * from /work/repo) are one file, so a baseline written with one spelling must match the
 * others. Paths are cleaned lexically (no `.`, no repeated `/`, `..` removing the component
 * before it: symbolic links are not resolved, so what a pattern says is what it matches),
 * then expressed relative to the working directory when they lie under it, else absolute.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "policy_internal.h"

/* Cleans `in` into `out` (room for strlen(in) + 2 bytes); returns its length. */
static size_t clean(char *out, const char *in)
{
    int abs = in[0] == '/';
    size_t o = 0, base;
    const char *p = in;
    if (abs)
        out[o++] = '/';
    base = o; /* what ".." cannot remove: the root, or leading ".." of a relative path */
    while (*p) {
        const char *e;
        size_t n;
        while (*p == '/')
            p++;
        if (!*p)
            break;
        for (e = p; *e && *e != '/'; e++)
            ;
        n = (size_t)(e - p);
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (o > base) {
                while (o > base && out[o - 1] != '/')
                    o--;
                if (o > base)
                    o--;
            } else if (!abs) {
                if (o)
                    out[o++] = '/';
                out[o++] = '.';
                out[o++] = '.';
                base = o;
            }
        } else if (!(n == 1 && p[0] == '.')) {
            if (o > (size_t)abs)
                out[o++] = '/';
            memcpy(out + o, p, n);
            o += n;
        }
        p = e;
    }
    if (!o)
        out[o++] = '.';
    out[o] = '\0';
    return o;
}

char *om_model_key(om_arena *A, const char *path, const char *cwd)
{
    size_t plen = strlen(path), clen = cwd && path[0] != '/' ? strlen(cwd) : 0, len, total;
    char *full, *out;
    if (!plen) /* the whole scan (an effort finding over several models) */
        return om_arena_strdup(A, "");
    if (!om_add_ok(plen, clen, &total) || !om_add_ok(total, 3, &total) ||
        !(full = om_arena_alloc(A, total)) || !(out = om_arena_alloc(A, total)))
        return NULL;
    if (clen) {
        memcpy(full, cwd, clen);
        full[clen] = '/';
        memcpy(full + clen + 1, path, plen + 1);
    } else {
        memcpy(full, path, plen + 1);
    }
    len = clean(out, full);
    if (cwd && out[0] == '/') {
        size_t k = strlen(cwd);
        if (k == 1) /* cwd is the root */
            return len == 1 ? strcpy(out, ".") : out + 1;
        if (len >= k && memcmp(out, cwd, k) == 0 && (out[k] == '\0' || out[k] == '/'))
            return out[k] ? out + k + 1 : strcpy(out, ".");
    }
    return out;
}

char *om_model_cwd(om_arena *A)
{
    size_t cap;
    for (cap = 4096; cap <= (1u << 20); cap *= 4) {
        char *buf = om_arena_alloc(A, cap), *out;
        if (!buf)
            return NULL;
        if (getcwd(buf, cap)) {
            if (buf[0] != '/' || !(out = om_arena_alloc(A, strlen(buf) + 2)))
                return NULL; /* "(unreachable)/..." from a chroot: no base to compare with */
            clean(out, buf);
            return out;
        }
        if (errno != ERANGE)
            return NULL;
    }
    return NULL;
}
