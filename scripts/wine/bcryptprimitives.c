/* bcryptprimitives.c: ProcessPrng for Wine 8 (Debian 12), which lacks
 * bcryptprimitives.dll. Go's Windows runtime (1.22 and later) loads
 * ProcessPrng from it at start and stops without it; Windows 10 and later
 * ship the DLL. scripts/wine-smoke.sh builds this shim with MinGW and puts
 * it in the Wine prefix only; it is never part of the Windows package. */
#include <windows.h>

/* RtlGenRandom, exported by advapi32 as SystemFunction036. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T n)
{
	while (n > 0) {
		ULONG chunk = n > 0x10000000 ? 0x10000000 : (ULONG)n;
		if (!SystemFunction036(data, chunk))
			return FALSE;
		data += chunk;
		n -= chunk;
	}
	return TRUE;
}
