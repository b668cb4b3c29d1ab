/* Platform services of the UEFI build (boot/ only). */
#ifndef PMH_BOOT_PLATFORM_H
#define PMH_BOOT_PLATFORM_H

#include <efi.h>
#include <efilib.h>

/* Output: console (UCS-2), COM1 (plain ASCII) and the log buffer. */
void out_init(void);
void out_line(const char *s);
/* Lines of the log not yet written to the log file. */
void out_attach_log(EFI_FILE_HANDLE f);
void out_flush_log(void);
void out_detach_log(void);
/* A line for the screen and COM1 only, not the log (countdown, key prompts). */
void out_screen(const char *s);
void serial_write(const char *s);

/* The folder the image was loaded from, on its own volume. */
EFI_FILE_HANDLE files_open_image_dir(EFI_HANDLE image, CHAR16 *dir_out, UINTN dir_len);
/* Reads a whole small file; returns an AllocatePool buffer or NULL. */
char *files_read(EFI_FILE_HANDLE dir, const CHAR16 *name, UINTN *len_out, EFI_STATUS *st);
/* Creates "pmuharness-NNN.<ext>" with the first NNN free for both .log and
 * .json; returns the handles (NULL on failure, with st). */
EFI_STATUS files_create_results(EFI_FILE_HANDLE dir, EFI_FILE_HANDLE *log, EFI_FILE_HANDLE *json,
				CHAR16 *name_out, UINTN name_len);
EFI_STATUS files_write(EFI_FILE_HANDLE f, const void *buf, UINTN len);
/* A word for the statuses a stick produces ("write-protected", "volume full"). */
const char *files_status_name(EFI_STATUS st);

/* Runs the suite on the CPUs the cpus option selects, through the
 * firmware's MP Services protocol (boot CPU only without the option or the
 * protocol), then prints one cpu.N.verdict line per CPU. fatal/recover are
 * the BSP's exception report and recovery, put back after each AP. */
struct suite;
struct apic_info;
struct pmh_jmpbuf;
void mp_run_suite(struct suite *s, struct apic_info *bsp_apic, void (*fatal)(const char *),
		  struct pmh_jmpbuf *recover);

/* Called by gnu-efi's crt0 with the System V convention (not EFIAPI). */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

#endif
