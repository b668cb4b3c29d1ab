/* The boot volume: the image's own folder, the config file beside it and the
 * results files, never anywhere else on the volume. */
#include "platform.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

/* Results files are numbered pmuharness-001 to pmuharness-999. */
#define RESULTS_MAX 999
/* A verified file whose size on the volume is not what was written: a
 * status no Write or Flush returns (UEFI spec, EFI_FILE_PROTOCOL.Write). */
#define SIZE_DIFFERS EFI_BAD_BUFFER_SIZE

/* The folder part of the image's file path: the file-path nodes joined,
 * the last component cut ("\\" for the root); from the pool, of any
 * length (FAT nests folders without a path limit). */
static CHAR16 *image_dir_path(EFI_DEVICE_PATH *fp)
{
	EFI_DEVICE_PATH *dp;
	CHAR16 *dir;
	UINTN n = 0, cap = 2;

	for (dp = fp; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp))
		if (DevicePathType(dp) == MEDIA_DEVICE_PATH &&
		    DevicePathSubType(dp) == MEDIA_FILEPATH_DP)
			cap += StrLen(((FILEPATH_DEVICE_PATH *)dp)->PathName) + 1;
	dir = AllocatePool(cap * sizeof(CHAR16));
	if (!dir)
		return NULL;
	for (dp = fp; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp)) {
		if (DevicePathType(dp) == MEDIA_DEVICE_PATH &&
		    DevicePathSubType(dp) == MEDIA_FILEPATH_DP) {
			CHAR16 *p = ((FILEPATH_DEVICE_PATH *)dp)->PathName;
			if (n && dir[n - 1] != L'\\' && p[0] != L'\\')
				dir[n++] = L'\\';
			for (; *p && n + 1 < cap; p++)
				dir[n++] = *p;
		}
	}
	while (n && dir[n - 1] != L'\\')
		n--;
	if (n > 1)
		n--; /* drop the trailing backslash, keep "\\" for the root */
	if (!n)
		dir[n++] = L'\\';
	dir[n] = 0;
	return dir;
}

void files_open_image_dir(struct efi_ctx *e)
{
	EFI_LOADED_IMAGE *li = NULL;
	EFI_FILE_IO_INTERFACE *fs = NULL;
	EFI_FILE_HANDLE root = NULL;
	EFI_STATUS st;

	e->dir = NULL;
	e->dir_path = NULL;
	st = uefi_call_wrapper(BS->HandleProtocol, 3, e->image, &LoadedImageProtocol, (void **)&li);
	if (st == EFI_SUCCESS && li) {
		e->dir_path = image_dir_path(li->FilePath);
		/* No file system on the boot device (a network boot): unsupported;
		 * iPXE's is read-only and holds what it fetched. */
		st = uefi_call_wrapper(BS->HandleProtocol, 3, li->DeviceHandle, &FileSystemProtocol,
				       (void **)&fs);
		net_probe(e, li->DeviceHandle);
	}
	if (st == EFI_SUCCESS && (!li || !fs || !e->dir_path))
		st = e->dir_path ? EFI_UNSUPPORTED : EFI_OUT_OF_RESOURCES;
	if (st == EFI_SUCCESS)
		st = uefi_call_wrapper(fs->OpenVolume, 2, fs, &root);
	if (st == EFI_SUCCESS) {
		/* That folder or nothing: never the root or another folder. */
		st = uefi_call_wrapper(root->Open, 5, root, &e->dir, e->dir_path,
				       EFI_FILE_MODE_READ, 0);
		uefi_call_wrapper(root->Close, 1, root);
	}
	e->dir_status = st;
	if (st != EFI_SUCCESS)
		e->dir = NULL;
}

void files_close_image_dir(struct efi_ctx *e)
{
	if (e->dir)
		uefi_call_wrapper(e->dir->Close, 1, e->dir);
	if (e->dir_path)
		FreePool(e->dir_path);
	e->dir = NULL;
	e->dir_path = NULL;
}

/* The file's size from its EFI_FILE_INFO; 0 when the firmware cannot say. */
static UINT64 file_size(EFI_FILE_HANDLE f)
{
	EFI_FILE_INFO *info = LibFileInfo(f);
	UINT64 size = info ? info->FileSize : 0;

	if (info)
		FreePool(info);
	return size;
}

char *files_read(EFI_FILE_HANDLE dir, const CHAR16 *name, UINTN *len_out, UINTN *size_out,
		 EFI_STATUS *st)
{
	EFI_FILE_HANDLE f = NULL;
	char *buf;
	UINTN cap = FILES_READ_MAX, len = 0;
	UINT64 size;

	*st = uefi_call_wrapper(dir->Open, 5, dir, &f, (CHAR16 *)name, EFI_FILE_MODE_READ, 0);
	if (*st != EFI_SUCCESS)
		return NULL;
	buf = AllocatePool(cap + 1);
	if (!buf) {
		*st = EFI_OUT_OF_RESOURCES;
		uefi_call_wrapper(f->Close, 1, f);
		return NULL;
	}
	while (len < cap) {
		UINTN n = cap - len;
		*st = uefi_call_wrapper(f->Read, 3, f, &n, buf + len);
		if (*st != EFI_SUCCESS || n == 0)
			break;
		len += n;
	}
	/* more than FILES_READ_MAX: the caller says where the cut falls */
	size = len == cap ? file_size(f) : len;
	uefi_call_wrapper(f->Close, 1, f);
	buf[len] = 0;
	*len_out = len;
	*size_out = size > len ? (UINTN)size : len;
	return buf;
}

static int exists(EFI_FILE_HANDLE dir, CHAR16 *name)
{
	EFI_FILE_HANDLE f = NULL;
	if (uefi_call_wrapper(dir->Open, 5, dir, &f, name, EFI_FILE_MODE_READ, 0) == EFI_SUCCESS) {
		uefi_call_wrapper(f->Close, 1, f);
		return 1;
	}
	return 0;
}

static EFI_STATUS create(EFI_FILE_HANDLE dir, CHAR16 *name, EFI_FILE_HANDLE *out)
{
	return uefi_call_wrapper(dir->Open, 5, dir, out, name,
				 EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE,
				 0);
}

/* Creates "pmuharness-NNN.<ext>" with the first NNN free for both .log and
 * .json; returns the handles (NULL on failure, with the status; *used_up
 * when every number is taken). */
static EFI_STATUS create_results(EFI_FILE_HANDLE dir, EFI_FILE_HANDLE *log, EFI_FILE_HANDLE *json,
				 CHAR16 *name_out, UINTN name_len, bool *used_up)
{
	CHAR16 lname[32], jname[32];
	EFI_STATUS st;

	*log = *json = NULL;
	*used_up = false;
	for (unsigned i = 1; i <= RESULTS_MAX; i++) {
		SPrint(lname, sizeof(lname), L"pmuharness-%03d.log", i);
		SPrint(jname, sizeof(jname), L"pmuharness-%03d.json", i);
		if (exists(dir, lname) || exists(dir, jname))
			continue;
		st = create(dir, lname, log);
		if (st != EFI_SUCCESS)
			return st;
		st = create(dir, jname, json);
		if (st != EFI_SUCCESS) {
			uefi_call_wrapper((*log)->Delete, 1, *log);
			*log = NULL;
			return st;
		}
		SPrint(name_out, name_len, L"pmuharness-%03d", i);
		return EFI_SUCCESS;
	}
	*used_up = true;
	return EFI_NOT_FOUND;
}

static EFI_STATUS files_write(EFI_FILE_HANDLE f, const void *buf, UINTN len)
{
	UINTN n = len;
	EFI_STATUS st = uefi_call_wrapper(f->Write, 3, f, &n, (void *)buf);
	if (st == EFI_SUCCESS && n != len)
		st = EFI_VOLUME_FULL;
	if (st == EFI_SUCCESS)
		st = uefi_call_wrapper(f->Flush, 1, f);
	return st;
}

const char *files_status_name(EFI_STATUS st)
{
	switch (st) {
	case EFI_WRITE_PROTECTED:
		return "write-protected volume";
	case EFI_VOLUME_FULL:
		return "volume full";
	case EFI_ACCESS_DENIED:
		return "access denied";
	case EFI_MEDIA_CHANGED:
	case EFI_NO_MEDIA:
		return "medium removed";
	case EFI_DEVICE_ERROR:
		return "device error";
	case EFI_NOT_FOUND:
		return "not found";
	case EFI_UNSUPPORTED:
		return "no file system on the boot device";
	case EFI_OUT_OF_RESOURCES:
		return "out of memory";
	case EFI_VOLUME_CORRUPTED:
		return "volume corrupted";
	case SIZE_DIFFERS:
		return "size on the volume differs from what was written";
	default:
		return "error";
	}
}

/* A path for a message: plain ASCII ('?' for anything else), cut with
 * "..." where it does not fit. */
static void ascii_path(char *out, size_t cap, const CHAR16 *w)
{
	size_t n = 0;

	for (; w && *w && n + 1 < cap; w++)
		out[n++] = *w >= 0x20 && *w < 0x7f ? (char)*w : '?';
	if (w && *w && cap > 4) {
		pmh_memcpy(out + cap - 4, "...", 3);
		n = cap - 1;
	}
	out[n] = 0;
}

bool files_results_open(void *ctx, char *name, size_t cap)
{
	struct efi_ctx *e = ctx;
	CHAR16 wide[40];
	char line[512], path[320];
	EFI_STATUS st;
	bool used_up;
	size_t i;

	e->log = e->json = NULL;
	e->results[0] = 0;
	if ((e->ipxe || !e->dir) && net_results_note(e))
		return false;
	if (!e->dir) {
		ascii_path(path, sizeof(path), e->dir_path);
		pmh_fmt(line, sizeof(line),
			"warning: cannot open the binary's folder %s (%s, EFI status 0x%llx): "
			"pmuharness.cfg not read, no results files; results are on the console "
			"and serial only",
			path[0] ? path : "(no file path)", files_status_name(e->dir_status),
			(unsigned long long)e->dir_status);
		out_line(line);
		return false;
	}
	st = create_results(e->dir, &e->log, &e->json, wide, sizeof(wide) / sizeof(wide[0]),
			    &used_up);
	if (used_up) {
		pmh_fmt(
		    line, sizeof(line),
		    "warning: no results files: the names pmuharness-001 to pmuharness-%03u "
		    "are all used beside the binary (move the old results away); results are on "
		    "the console and serial only",
		    RESULTS_MAX);
		out_line(line);
		return false;
	}
	if (st != EFI_SUCCESS) {
		pmh_fmt(line, sizeof(line),
			"warning: cannot create results files beside the binary "
			"(%s, EFI status 0x%llx): results are on the console and serial only",
			files_status_name(st), (unsigned long long)st);
		out_line(line);
		return false;
	}
	out_attach_log(e->log);
	for (i = 0; wide[i] && i + 1 < sizeof(e->results); i++)
		e->results[i] = (char)wide[i];
	e->results[i] = 0;
	pmh_fmt(name, cap, "%s.log %s.json", e->results, e->results);
	return true;
}

void files_results_flush(void *ctx)
{
	(void)ctx;
	out_flush_log();
}

/* Ends one results file: kept when every write succeeded and the size the
 * volume records (EFI_FILE_INFO) is len; deleted otherwise. Appends
 * "NAME written and verified" or "NAME: why: removed" to msg. */
static bool finish_file(EFI_FILE_HANDLE f, EFI_STATUS st, UINT64 len, const char *name, char *msg,
			size_t cap)
{
	EFI_FILE_INFO *info;
	char why[96];

	if (st == EFI_SUCCESS)
		st = uefi_call_wrapper(f->Flush, 1, f);
	if (st == EFI_SUCCESS) {
		info = LibFileInfo(f);
		if (!info || info->FileSize != len)
			st = info ? SIZE_DIFFERS : EFI_OUT_OF_RESOURCES;
		if (info)
			FreePool(info);
	}
	if (st == EFI_SUCCESS) {
		uefi_call_wrapper(f->Close, 1, f);
		results_file_outcome(msg, cap, name, NULL);
		return true;
	}
	/* Delete closes the handle too; a warning status means it stayed. */
	EFI_STATUS del = uefi_call_wrapper(f->Delete, 1, f);
	pmh_fmt(why, sizeof(why), "%s (EFI status 0x%llx): %s", files_status_name(st),
		(unsigned long long)st,
		del == EFI_SUCCESS ? "removed" : "incomplete and could not be removed");
	results_file_outcome(msg, cap, name, why);
	return false;
}

bool files_results_close(void *ctx, const char *json, size_t len)
{
	struct efi_ctx *e = ctx;
	char line[400], msg[320], name[24];
	bool ok = true;
	UINT64 written;

	msg[0] = 0;
	if (e->log) {
		EFI_STATUS st = out_detach_log(&written);
		pmh_fmt(name, sizeof(name), "%s.log", e->results);
		ok &= finish_file(e->log, st, written, name, msg, sizeof(msg));
		e->log = NULL;
	}
	if (e->json) {
		/* json NULL: no memory for the document; the file would be empty. */
		EFI_STATUS st = json ? files_write(e->json, json, len) : EFI_OUT_OF_RESOURCES;
		pmh_fmt(name, sizeof(name), "%s.json", e->results);
		ok &= finish_file(e->json, st, json ? len : 0, name, msg, sizeof(msg));
		e->json = NULL;
	}
	if (!msg[0])
		return false; /* there were no results files */
	/* After the log file is closed: the screen and serial port only. */
	results_saved_line(line, sizeof(line), ok, msg);
	out_screen(line);
	return ok;
}
