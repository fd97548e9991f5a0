#!/bin/sh
# tests/api/check_headers.sh - the public headers are clean C and C++:
#  1. each header compiles on its own (and included twice) as C99 and C11 with
#     -pedantic -Wall -Wextra -Werror, and as C++98, C++11 and C++17 the same way;
#  2. they include only other opmap headers and the C standard library, and name no
#     third-party type (libyaml, cJSON, protobuf-c, zlib);
#  3. header_use.c, which uses the initialiser macros and calls the library, builds as C and
#     as C++, links against libopmap.so and runs.
# Usage: check_headers.sh CC CXX INCLUDE_DIR LIBRARY_DIR WORK_DIR [EXTRA_FLAGS]
set -eu
cc=$1 cxx=$2 inc=$3 libdir=$4 work=$5 extra=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
warn="-pedantic -Wall -Wextra -Werror -Wundef -Wshadow"
fail=0

try() { # what, command...
    what=$1
    shift
    if ! "$@" >"$work/out.txt" 2>&1; then
        echo "FAIL: $what"
        echo "  $*"
        sed 's/^/  /' "$work/out.txt"
        fail=1
    fi
}

n=0
for h in "$inc"/opmap/*.h; do
    name=$(basename "$h")
    n=$((n + 1))
    printf '#include <opmap/%s>\n#include <opmap/%s>\nint header_test_%d;\n' "$name" "$name" "$n" \
        >"$work/h$n.c"
    for std in c99 c11; do
        try "$name as $std" $cc -std=$std $warn -Wstrict-prototypes -I"$inc" -c "$work/h$n.c" \
            -o "$work/h$n.$std.o"
    done
    for std in c++98 c++11 c++17; do
        try "$name as $std" $cxx -x c++ -std=$std $warn -I"$inc" -c "$work/h$n.c" \
            -o "$work/h$n.$std.o"
    done
done
[ "$n" -gt 0 ] || { echo "FAIL: no headers in $inc/opmap"; exit 1; }

# Only opmap headers ("x.h", present beside it) and the C library's own.
grep -n '^[[:space:]]*#[[:space:]]*include' "$inc"/opmap/*.h >"$work/includes.txt" || true
while IFS= read -r line; do
    hdr=$(printf '%s\n' "$line" | sed -n 's/.*#[[:space:]]*include[[:space:]]*\(.*\)$/\1/p')
    case "$hdr" in
    \"*\")
        f=$(printf '%s' "$hdr" | tr -d '"')
        [ -f "$inc/opmap/$f" ] || { echo "FAIL: $line: not an opmap header"; fail=1; } ;;
    "<stddef.h>"|"<stdint.h>"|"<stdio.h>"|"<stdarg.h>"|"<limits.h>") ;;
    *) echo "FAIL: $line: public headers include only opmap headers and the C library"; fail=1 ;;
    esac
done <"$work/includes.txt"
third_party='(\byaml_[a-z_]+_t\b|\bcJSON[[:space:]]*\*|\bProtobufC[A-Z]|\bprotobuf_c_'
third_party="$third_party|\bzip_t\b|\bzip_file_t\b|\bOnnx__)"
if grep -nE "$third_party" "$inc"/opmap/*.h; then
    echo "FAIL: a third-party type in a public header (above)"
    fail=1
fi

# Use from C and C++, linked and run.
try "header_use.c as C99" $cc -std=c99 $warn -Wstrict-prototypes -I"$inc" $extra \
    "$here/header_use.c" -o "$work/use_c" -L"$libdir" -lopmap -Wl,-rpath,"$libdir"
try "header_use.c as C++11" $cxx -x c++ -std=c++11 $warn -I"$inc" $extra "$here/header_use.c" \
    -x none -o "$work/use_cxx" -L"$libdir" -lopmap -Wl,-rpath,"$libdir"
try "header_use.c as C++98" $cxx -x c++ -std=c++98 $warn -I"$inc" $extra "$here/header_use.c" \
    -x none -o "$work/use_cxx98" -L"$libdir" -lopmap -Wl,-rpath,"$libdir"
for exe in use_c use_cxx use_cxx98; do
    [ -x "$work/$exe" ] && try "running $exe" "$work/$exe"
done

if [ "$fail" -ne 0 ]; then
    exit 1
fi
echo "ok: $n headers compile as c99, c11, c++98, c++11, c++17; header_use runs as C and C++"
