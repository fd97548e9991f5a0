# cmake -DIN=file -DOUT=file.c -DSYM=name -P embed_file.cmake: the bytes of IN as a C array
# (const unsigned char SYM[]; const size_t SYM_size), for data the library carries built in.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR size "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* generated from ${IN} by cmake/embed_file.cmake */\n#include <stddef.h>\n"
  "extern const unsigned char ${SYM}[];\nextern const size_t ${SYM}_size;\n"
  "const unsigned char ${SYM}[] = {\n${body}0x00};\nconst size_t ${SYM}_size = ${size};\n")
