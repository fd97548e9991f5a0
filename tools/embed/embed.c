/*
 * tools/embed/embed.c - build-time helper: writes a file's bytes as a C array.
 *
 *   embed INPUT OUTPUT.c SYMBOL
 *
 * produces `const unsigned char SYMBOL[]` and `const size_t SYMBOL_size`. Used to compile
 * data/op_map.yaml into libopmap, so the library needs no data files at run time.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    FILE *in, *out;
    int c;
    unsigned long n = 0;
    if (argc != 4) {
        fprintf(stderr, "usage: embed INPUT OUTPUT.c SYMBOL\n");
        return 2;
    }
    if (!(in = fopen(argv[1], "rb"))) {
        perror(argv[1]);
        return 1;
    }
    if (!(out = fopen(argv[2], "wb"))) {
        perror(argv[2]);
        fclose(in);
        return 1;
    }
    fprintf(out, "/* generated from %s by tools/embed: do not edit */\n", argv[1]);
    fprintf(out, "#include <stddef.h>\n");
    fprintf(out, "extern const unsigned char %s[];\nextern const size_t %s_size;\n", argv[3],
            argv[3]);
    fprintf(out, "const unsigned char %s[] = {\n", argv[3]);
    while ((c = fgetc(in)) != EOF) {
        fprintf(out, "%u,", (unsigned)c);
        if (++n % 24 == 0)
            fputc('\n', out);
    }
    fprintf(out, "0\n};\nconst size_t %s_size = %lu;\n", argv[3], n);
    fclose(in);
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 1;
    }
    return 0;
}
