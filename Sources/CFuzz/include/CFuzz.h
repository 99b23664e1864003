#ifndef XIZOR_CFUZZ_H
#define XIZOR_CFUZZ_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for programs that keep their own `main` (SwiftPM gives every executable one).
/// Defined by the libFuzzer runtime that `-sanitize=fuzzer` links; only referenced in FUZZING builds.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
