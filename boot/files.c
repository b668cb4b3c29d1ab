/* The boot volume: the image's own folder, the config file beside it and the
 * results files, never anywhere else on the volume. */
#include "platform.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

/* pmuharness.cfg is read up to this size. */
#define READ_MAX (32 * 1024)
/* Results files are numbered pmuharness-001 to pmuharness-999. */
#define RESULTS_MAX 999

EFI_FILE_HANDLE files_open_image_dir(EFI_HANDLE image, CHAR16 *dir, UINTN dir_len)
{
	EFI_LOADED_IMAGE *li = NULL;
	EFI_FILE_IO_INTERFACE *fs = NULL;
	EFI_FILE_HANDLE root = NULL, d = NULL;
	EFI_DEVICE_PATH *dp;
	UINTN n = 0;

	if (uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li) !=
		    EFI_SUCCESS ||
	    !li)
		return NULL;
	if (uefi_call_wrapper(BS->HandleProtocol, 3, li->DeviceHandle, &FileSystemProtocol,
			      (void **)&fs) != EFI_SUCCESS ||
	    !fs)
		return NULL;
	if (uefi_call_wrapper(fs->OpenVolume, 2, fs, &root) != EFI_SUCCESS)
		return NULL;

	/* Concatenate the file-path nodes, then cut the last component. */
	dir[0] = 0;
	for (dp = li->FilePath; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp)) {
		if (DevicePathType(dp) == MEDIA_DEVICE_PATH &&
		    DevicePathSubType(dp) == MEDIA_FILEPATH_DP) {
			CHAR16 *p = ((FILEPATH_DEVICE_PATH *)dp)->PathName;
			if (n && dir[n - 1] != L'\\' && p[0] != L'\\' && n + 1 < dir_len)
				dir[n++] = L'\\';
			for (; *p && n + 1 < dir_len; p++)
				dir[n++] = *p;
			dir[n] = 0;
		}
	}
	while (n && dir[n - 1] != L'\\')
		n--;
	if (n > 1)
		n--; /* drop the trailing backslash, keep "\" for the root */
	if (!n)
		dir[n++] = L'\\';
	dir[n] = 0;
	if (uefi_call_wrapper(root->Open, 5, root, &d, dir, EFI_FILE_MODE_READ, 0) != EFI_SUCCESS)
		d = root;
	else
		uefi_call_wrapper(root->Close, 1, root);
	return d;
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
	UINTN cap = READ_MAX, len = 0;
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
	/* more than READ_MAX: the caller says where the cut falls */
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
static EFI_STATUS create_results(EFI_FILE_HANDLE dir, EFI_FILE_HANDLE *log,
				 EFI_FILE_HANDLE *json, CHAR16 *name_out, UINTN name_len,
				 bool *used_up)
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
	default:
		return "error";
	}
}

bool files_results_open(void *ctx, char *name, size_t cap)
{
	struct efi_ctx *e = ctx;
	CHAR16 wide[40];
	char line[256];
	EFI_STATUS st;
	bool used_up;
	size_t i;

	e->log = e->json = NULL;
	if (!e->dir) {
		out_line("warning: cannot open the folder the binary was loaded from: results are "
			 "on the console and serial only");
		return false;
	}
	st = create_results(e->dir, &e->log, &e->json, wide, sizeof(wide) / sizeof(wide[0]),
			    &used_up);
	if (used_up) {
		pmh_fmt(line, sizeof(line),
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
	for (i = 0; wide[i] && i + 1 < cap; i++)
		name[i] = (char)wide[i];
	name[i] = 0;
	return true;
}

void files_results_flush(void *ctx)
{
	(void)ctx;
	out_flush_log();
}

void files_results_close(void *ctx, const char *json, size_t len)
{
	struct efi_ctx *e = ctx;
	char line[160];

	if (e->json) {
		EFI_STATUS st = json ? files_write(e->json, json, len) : EFI_OUT_OF_RESOURCES;
		if (st != EFI_SUCCESS) {
			pmh_fmt(line, sizeof(line),
				"error: writing the JSON results failed (%s, EFI status 0x%llx)",
				files_status_name(st), (unsigned long long)st);
			out_line(line);
		}
		uefi_call_wrapper(e->json->Close, 1, e->json);
		e->json = NULL;
	}
	if (e->log) {
		out_detach_log();
		uefi_call_wrapper(e->log->Close, 1, e->log);
		e->log = NULL;
	}
}
