# cmake -DIN=file -DOUT=header -P OlcEmbed.cmake
# Writes a C header defining olc_default_config[] and olc_default_config_len.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR len "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n  " body "${body}")
file(WRITE ${OUT} "/* generated from default.ini by OlcEmbed.cmake; do not edit */\n"
  "static const unsigned char olc_default_config[] = {\n  ${body}0x00};\n"
  "static const unsigned long olc_default_config_len = ${len}UL;\n")
