// Declarations only: CFuzz.h names libFuzzer's driver for xizor-fuzz (a C target needs one source file).
#include "CFuzz.h"
