// ProcessPrng, which Rust's standard library (1.78 on) takes its random seeds from on Windows,
// for wine 8.0, which has no bcryptprimitives.dll: the same bytes from RtlGenRandom (advapi32's
// SystemFunction036). For the Windows smoke test only (scripts/smoke-windows.mjs).
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    length -= n;
  }
  return TRUE;
}
