x = ((((((((((((1))))))))))))
s = "unterminated
