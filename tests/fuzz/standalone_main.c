/*
 * tests/fuzz/standalone_main.c - runs a harness over files without libFuzzer, so the
 * harnesses build with any compiler and the committed corpora run in ctest:
 *
 *     fuzz_onnx_regress FILE|DIR...     each file (directories: each file in them) once
 *
 * An invariant that fails aborts, which fails the test and names the input on stderr.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0, n;
    if (!f) {
        perror(path);
        return 1;
    }
    do {
        if (len == cap) {
            unsigned char *nb;
            cap = cap ? cap * 2 : 65536;
            if (!(nb = realloc(buf, cap))) {
                fclose(f);
                free(buf);
                return 1;
            }
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n);
    fclose(f);
    fprintf(stderr, "%s\n", path); /* names the input if the harness aborts */
    /* an exact-size copy, so reading one byte past the input is caught by ASan/valgrind */
    {
        unsigned char *exact = malloc(len ? len : 1);
        if (!exact) {
            free(buf);
            return 1;
        }
        memcpy(exact, buf, len);
        free(buf);
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
    }
    return 0;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path, size_t *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return 1;
    }
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        char **names = NULL;
        size_t n = 0, cap = 0, i;
        int rc = 0;
        if (!d) {
            perror(path);
            return 1;
        }
        while ((e = readdir(d))) {
            char *full;
            if (e->d_name[0] == '.')
                continue;
            if (n == cap) {
                char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*names));
                if (!nn)
                    return 1;
                names = nn;
            }
            if (!(full = malloc(strlen(path) + strlen(e->d_name) + 2)))
                return 1;
            sprintf(full, "%s/%s", path, e->d_name);
            names[n++] = full;
        }
        closedir(d);
        qsort(names, n, sizeof(*names), cmp);
        for (i = 0; i < n; i++) {
            if (!rc)
                rc = run_path(names[i], count);
            free(names[i]);
        }
        free(names);
        return rc;
    }
    ++*count;
    return run_file(path);
}

int main(int argc, char **argv)
{
    size_t count = 0;
    int i;
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    for (i = 1; i < argc; i++)
        if (run_path(argv[i], &count))
            return 1;
    printf("%s: %zu inputs, every invariant held\n", argv[0], count);
    return 0;
}
