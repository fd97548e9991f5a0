/*
 * policy/dates.c - waiver expiry dates (YYYY-MM-DD, compared as strings).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "policy_internal.h"

int om_date_valid(const char *s)
{
    int y, m, d, n = 0;
    static const int days[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || n != 10)
        return 0;
    return y >= 1970 && m >= 1 && m <= 12 && d >= 1 && d <= days[m - 1] &&
           s[4] == '-' && s[7] == '-';
}

void om_today(const char *override, char out[11])
{
    time_t now;
    struct tm tm;
    if (override && om_date_valid(override)) {
        memcpy(out, override, 11);
        return;
    }
    now = time(NULL);
    gmtime_r(&now, &tm);
    strftime(out, 11, "%Y-%m-%d", &tm);
}

/* Days since 1970-01-01 for a civil date, and back (Howard Hinnant's algorithms). */
static long days_from_civil(long y, unsigned m, unsigned d)
{
    long era;
    unsigned yoe, doy, doe;
    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned)(y - era * 400);
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long)doe - 719468;
}

void om_date_add_days(const char *ymd, long days, char out[11])
{
    int y, m, d;
    long z, era, yy;
    unsigned doe, yoe, doy, mp, dd, mm;
    sscanf(ymd, "%4d-%2d-%2d", &y, &m, &d);
    z = days_from_civil(y, (unsigned)m, (unsigned)d) + days + 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = (unsigned)(z - era * 146097);
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    yy = (long)yoe + era * 400;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    dd = doy - (153 * mp + 2) / 5 + 1;
    mm = mp < 10 ? mp + 3 : mp - 9;
    yy += mm <= 2;
    if (yy < 1970 || yy > 9999) /* out of what the format (and expiry dates) need */
        yy = yy < 1970 ? 1970 : 9999;
    snprintf(out, 11, "%04d-%02u-%02u", (int)yy, mm % 13, dd % 32);
}
