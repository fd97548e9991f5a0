/*
 * policy/glob.c - '*' and '?' patterns for waiver model and node paths.
 *
 * The classic two-pointer match: on a mismatch, retry from just after the last '*'. Each
 * text position is retried at most once per star, so hostile patterns cannot blow up.
 */
#include "policy_internal.h"

int om_glob(const char *p, const char *t)
{
    const char *star = NULL, *resume = NULL;
    while (*t) {
        if (*p == '*') {
            star = p++;
            resume = t;
        } else if (*p == '?' || *p == *t) {
            p++;
            t++;
        } else if (star) {
            p = star + 1;
            t = ++resume;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}
