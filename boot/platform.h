/* The UEFI platform's own declarations (boot/ only): what its files share
 * to fill the platform seam (tests/platform.h). */
#ifndef PMH_BOOT_PLATFORM_H
#define PMH_BOOT_PLATFORM_H

#include <efi.h>
#include <efilib.h>
#include <efishell.h>
#include "../apic/isr.h"
#include "../tests/platform.h"
#include "../tests/screen.h"

struct ipxe_download; /* iPXE's download protocol (boot/netboot.c) */

/* The state behind the seam's ctx. Not on a stack: the file handles and
 * the recovery point must survive a longjmp out of a check. */
struct efi_ctx {
	EFI_HANDLE image;
	EFI_FILE_HANDLE dir;	    /* the folder the image was loaded from, or NULL */
	CHAR16 *dir_path;	    /* its path on the volume (pool), or NULL */
	EFI_STATUS dir_status;	    /* why dir is NULL */
	EFI_PXE_BASE_CODE *pxe;	    /* the boot device's PXE base code (started), or NULL */
	struct ipxe_download *ipxe; /* iPXE loaded the image: its download protocol, or NULL */
	EFI_FILE_HANDLE log, json;  /* this run's results files, or NULL */
	char results[16];	    /* their base name, "pmuharness-003" */
	struct pmh_jmpbuf recover;  /* where an unexpected exception on the BSP lands */
};

/* Output: console (UCS-2), COM1 (plain ASCII) and the log buffer. */
void out_init(void);
/* The console the screen goes to (NULL: none). */
SIMPLE_TEXT_OUTPUT_INTERFACE *out_con(void);
/* From here on the screen goes to the display's own console only, not
 * the firmware's copy of it on COM1 (output = lava: a lab's log has our
 * plain lines alone); none on a machine without a display. */
void out_display_only(void);
void out_line(const char *s);
/* The log file: lines are held in a buffer and written at each flush; a
 * failed write stops the writing. detach: the last lines written, then the
 * first failed status (EFI_SUCCESS: none) and the bytes written. */
void out_attach_log(EFI_FILE_HANDLE f);
void out_flush_log(void);
EFI_STATUS out_detach_log(UINT64 *written);
/* A line for the screen and COM1 only, not the log (countdown, key prompts). */
void out_screen(const char *s);
/* A line from exception context, no firmware call: COM1, the log buffer
 * (written at the next flush) and the screen's crash panel. */
void out_fatal(const char *s);
/* The machine's screen (screen_efi.c): the layout of tests/screen.h in
 * the console's current mode, shown from a run's start (scr_active) in
 * place of the scrolling lines. line, prompt, fatal feed it (fatal from
 * exception context: memory only); paint shows what changed; status is
 * the seam's status member. */
void scr_init(void);
/* scr_init again for the console out_con now gives (before a run). */
void scr_retarget(void);
bool scr_active(void);
void scr_line(const char *s);
void scr_prompt(const char *s);
void scr_fatal(const char *s);
void scr_paint(void);
/* The same unless the last repaint is under PAINT_GAP_US old (lines). */
void scr_paint_soon(void);
void scr_status(void *ctx, const struct screen_event *ev);
/* The keyboard for the seam's key_flush and key_wait (NULL ctx). */
void key_flush(void *ctx);
enum platform_key key_wait(void *ctx, uint64_t us);

/* The folder e->image was loaded from, on its own volume, into e->dir,
 * e->dir_path and e->dir_status; no other folder when it cannot be opened.
 * close: closes it and frees the path. */
void files_open_image_dir(struct efi_ctx *e);
void files_close_image_dir(struct efi_ctx *e);
/* pmuharness.cfg is read up to this size, from a volume (files_read) or
 * over TFTP (net_read). */
#define FILES_READ_MAX (32 * 1024)
/* Reads a small file, up to its first FILES_READ_MAX bytes: an AllocatePool buffer
 * (NUL-terminated) with the bytes read in *len_out and the file's size in
 * *size_out (larger when the file was cut), or NULL with the status. */
char *files_read(EFI_FILE_HANDLE dir, const CHAR16 *name, UINTN *len_out, UINTN *size_out,
		 EFI_STATUS *st);
/* The seam's results members over struct efi_ctx: "pmuharness-NNN.log"
 * and ".json" beside the binary, with the first NNN free for both. close
 * keeps each file whose size on the volume is what was written, deletes
 * any other, and says which on the screen and serial port. */
bool files_results_open(void *ctx, char *name, size_t cap);
void files_results_flush(void *ctx);
bool files_results_close(void *ctx, const char *json, size_t len);
/* A word for the statuses a stick produces ("write-protected", "volume full"). */
const char *files_status_name(EFI_STATUS st);

/* A network boot (netboot.c). probe: e->pxe and e->ipxe from the boot
 * device (the firmware's PXE, or iPXE: netboot.c says how they are told
 * apart). results_note: on a network boot, says how the image was loaded
 * and that no results files are written (true). read: on a network boot,
 * says how the image was loaded, fetches name from beside it as
 * files_read does (origin: where from) and says where the config came
 * from or why none did; NULL when none did. */
void net_probe(struct efi_ctx *e, EFI_HANDLE dev);
bool net_results_note(struct efi_ctx *e);
char *net_read(struct efi_ctx *e, const char *name, UINTN *len_out, UINTN *size_out, char *origin,
	       size_t cap);

/* The seam's run_cpus over struct efi_ctx: the suite on the CPUs the cpus
 * option selects, through the firmware's MP Services protocol (the boot
 * CPU only without the option or the protocol), then one cpu.N.verdict
 * line per CPU. */
void mp_run_suite(void *ctx, struct harness *h);

/* The machine's identity members of the seam: firmware vendor and
 * revision, the SMBIOS table, the firmware clock (boot/smbios.c). */
void efi_identity(struct platform *p);

/* Called by gnu-efi's crt0 with the System V convention (not EFIAPI). */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

#endif
