/* The benchmark baseline: the smallest EFI application that reaches a
 * verdict (debug-exit value 0) on the same firmware, so that boot-to-verdict
 * time of the harness can be compared with firmware start-up alone. */
#include <efi.h>
#include <efilib.h>

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	InitializeLib(image, systab);
	__asm__ volatile("outl %0, %1" : : "a"(0u), "Nd"((uint16_t)0xf4));
	return EFI_SUCCESS;
}
