/* A network boot: the image came over the network, its device has no
 * writable file system, so pmuharness.cfg is fetched from beside it and
 * results stay on the screen and serial port. Who loaded it is told by
 * what the loader left on the loaded image's device handle:
 * - the firmware's PXE (OVMF's own driver): its started PXE base code; the
 *   config comes from the boot file's folder on its TFTP server (Mtftp);
 * - iPXE (QEMU's default NIC ROMs, a lab's chained iPXE): its download
 *   protocol, beside its file system and a partial PXE base code (iPXE
 *   src/image/efi_image.c, efi_image_exec); the config is an image iPXE
 *   already fetched (imgfetch; src/interface/efi/efi_file.c), else it is
 *   downloaded beside the image (src/interface/efi/efi_download.c).
 * IPv4 only. */
#include "platform.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "../pmu/hw.h"

extern uint64_t pmh_tsc_per_us;

/* The BOOTP "file" field is 128 bytes and need not end in a NUL
 * (RFC 951 / RFC 2131 section 2, the DHCP message format). */
#define BOOTFILE_MAX 128
/* Over the firmware's PXE the whole file is read into one buffer (what a
 * short buffer holds is not defined: UEFI spec 2.10 §24.3,
 * EFI_PXE_BASE_CODE_PROTOCOL.Mtftp), up to this size. */
#define PXE_WHOLE_MAX (16u * 1024 * 1024)
/* A download through iPXE ends by then: its TFTP client retries on its own
 * (iPXE src/net/udp/tftp.c), this only bounds a file that never ends. */
#define IPXE_FETCH_US (20ull * 1000 * 1000)
/* Without a calibrated TSC: assume 3 GHz for the bound above. */
#define TSC_GUESS_PER_US 3000

/* iPXE's download protocol, as iPXE include/ipxe/efi/efi_download.h has
 * it: Start opens a URL (relative ones resolve against the running
 * image's own URL: src/core/image.c image_exec, src/core/open.c), Poll
 * runs iPXE, the callbacks report data (a zero length: a size hint in
 * the offset) and the end. */
typedef EFI_STATUS(EFIAPI *ipxe_data_fn)(VOID *ctx, VOID *buf, UINTN len, UINTN off);
typedef VOID(EFIAPI *ipxe_finish_fn)(VOID *ctx, EFI_STATUS st);
struct ipxe_download {
	EFI_STATUS(EFIAPI *start)
	(struct ipxe_download *self, CHAR8 *url, ipxe_data_fn data, ipxe_finish_fn finish,
	 VOID *ctx, VOID **file);
	EFI_STATUS(EFIAPI *abort)(struct ipxe_download *self, VOID *file, EFI_STATUS st);
	EFI_STATUS(EFIAPI *poll)(struct ipxe_download *self);
};
static EFI_GUID ipxe_download_guid = {
    0x3eaeaebd, 0xdecf, 0x493b, {0x9b, 0xd1, 0xcd, 0xb2, 0xde, 0xca, 0xe7, 0x19}};

/* A config file being read: its first FILES_READ_MAX bytes, the size. */
struct fetch {
	char *buf;	  /* FILES_READ_MAX + 1 bytes, zeroed */
	UINTN len;	  /* bytes kept */
	UINT64 size;	  /* the file's size as far as known */
	bool done;	  /* the download ended, with st */
	EFI_STATUS st;	  /* why nothing was read, EFI_SUCCESS when it was */
	char origin[200]; /* where from, for messages */
	const char *via;  /* through what */
};

void net_probe(struct efi_ctx *e, EFI_HANDLE dev)
{
	EFI_PXE_BASE_CODE *pxe = NULL;
	struct ipxe_download *dl = NULL;

	e->pxe = NULL;
	e->ipxe = NULL;
	if (uefi_call_wrapper(BS->HandleProtocol, 3, dev, &PxeBaseCodeProtocol, (void **)&pxe) ==
		EFI_SUCCESS &&
	    pxe && pxe->Mode && pxe->Mode->Started)
		e->pxe = pxe;
	if (uefi_call_wrapper(BS->HandleProtocol, 3, dev, &ipxe_download_guid, (void **)&dl) ==
		EFI_SUCCESS &&
	    dl)
		e->ipxe = dl;
}

/* The DHCP packet that named the boot file: a PXE boot server's reply, a
 * proxy DHCP offer, then the DHCP ack (the order a PXE client takes them
 * in, UEFI spec, EFI_PXE_BASE_CODE_PROTOCOL.Dhcp/Discover); iPXE fakes
 * them from its settings (src/interface/efi/efi_pxe.c efi_pxe_fake_all).
 * NULL over IPv6. */
static EFI_PXE_BASE_CODE_DHCPV4_PACKET *boot_packet(EFI_PXE_BASE_CODE_MODE *m)
{
	if (m->UsingIpv6)
		return NULL;
	if (m->PxeReplyReceived && m->PxeReply.Dhcpv4.BootpBootFile[0])
		return &m->PxeReply.Dhcpv4;
	if (m->ProxyOfferReceived && m->ProxyOffer.Dhcpv4.BootpBootFile[0])
		return &m->ProxyOffer.Dhcpv4;
	return m->DhcpAckReceived ? &m->DhcpAck.Dhcpv4 : NULL;
}

/* iPXE takes a URL for a boot file name ("http://..."). */
static bool has_scheme(const char *s)
{
	const char *c = pmh_strchr(s, ':');
	return c && c > s && c[1] == '/' && c[2] == '/';
}

/* "tftp://A.B.C.D/" and the boot file's path (folder kept, name replaced
 * by name when it is not NULL) into url, path_at where the path starts;
 * false without an IPv4 packet. */
static bool boot_url(struct efi_ctx *e, const char *name, char *url, size_t cap, size_t *path_at)
{
	EFI_PXE_BASE_CODE_DHCPV4_PACKET *p = e->pxe ? boot_packet(e->pxe->Mode) : NULL;
	char file[BOOTFILE_MAX + 1];
	size_t n, cut = 0;

	if (!p)
		return false;
	pmh_slice(file, sizeof(file), (const char *)p->BootpBootFile, BOOTFILE_MAX);
	for (n = 0; file[n]; n++)
		if (file[n] == '/')
			cut = n + 1;
	if (name)
		file[cut] = 0;
	*path_at = 0;
	if (has_scheme(file)) {
		pmh_fmt(url, cap, "%s%s", file, name ? name : "");
		return true;
	}
	n = pmh_fmt(url, cap, "tftp://%u.%u.%u.%u/", p->BootpSiAddr[0], p->BootpSiAddr[1],
		    p->BootpSiAddr[2], p->BootpSiAddr[3]);
	*path_at = n < cap ? n : cap - 1;
	pmh_fmt(url + *path_at, cap - *path_at, "%s%s", file[0] == '/' ? file + 1 : file,
		name ? name : "");
	return true;
}

/* The image's own file name, the last node of its file path (iPXE gives
 * the image's name: src/image/efi_image.c efi_image_path); "" if none. */
static void image_name(struct efi_ctx *e, char *out, size_t cap)
{
	EFI_LOADED_IMAGE *li = NULL;
	EFI_DEVICE_PATH *dp;
	const CHAR16 *w = NULL, *c;
	size_t n = 0;

	if (uefi_call_wrapper(BS->HandleProtocol, 3, e->image, &LoadedImageProtocol,
			      (void **)&li) == EFI_SUCCESS &&
	    li)
		for (dp = li->FilePath; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp))
			if (DevicePathType(dp) == MEDIA_DEVICE_PATH &&
			    DevicePathSubType(dp) == MEDIA_FILEPATH_DP)
				w = ((FILEPATH_DEVICE_PATH *)dp)->PathName;
	for (c = w; c && *c; c++)
		if (*c == L'\\' || *c == L'/')
			w = c + 1;
	for (; w && *w && n + 1 < cap; w++)
		out[n++] = *w > 0x20 && *w < 0x7f ? (char)*w : '?';
	out[n] = 0;
}

/* iPXE started the DHCP boot file itself (not a script that chained the
 * image): the image's name is the boot file's last component. */
static bool ipxe_booted_file(struct efi_ctx *e, const char *url)
{
	char img[64];
	const char *last = url, *c;

	image_name(e, img, sizeof(img));
	for (c = url; *c; c++)
		if (*c == '/')
			last = c + 1;
	return img[0] && !pmh_strcasecmp(img, last);
}

/* "boot: loaded by ..." once, before the config's lines. */
static void boot_line(struct efi_ctx *e)
{
	char url[200], img[64], line[400];
	size_t at;
	bool known = boot_url(e, NULL, url, sizeof(url), &at);

	image_name(e, img, sizeof(img));
	if (!e->ipxe)
		pmh_fmt(line, sizeof(line), "boot: loaded by the firmware's PXE over TFTP from %s",
			known ? url : "an IPv6 server");
	else if (known && ipxe_booted_file(e, url))
		pmh_fmt(line, sizeof(line), "boot: loaded by iPXE from %s (its DHCP boot file)",
			url);
	else if (known)
		pmh_fmt(line, sizeof(line),
			"boot: loaded by iPXE as %s (a script chained it; DHCP boot file %s)", img,
			url);
	else
		pmh_fmt(line, sizeof(line), "boot: loaded by iPXE over the network as %s", img);
	out_line(line);
}

static EFI_STATUS EFIAPI fetch_data(VOID *ctx, VOID *data, UINTN len, UINTN off)
{
	struct fetch *f = ctx;

	/* a zero length is a size hint (iPXE efi_download.h) */
	if (off + len > f->size)
		f->size = off + len;
	if (len && off < FILES_READ_MAX) {
		UINTN n = len < FILES_READ_MAX - off ? len : FILES_READ_MAX - off;
		pmh_memcpy(f->buf + off, data, n);
		if (off + n > f->len)
			f->len = off + n;
	}
	return EFI_SUCCESS;
}

static VOID EFIAPI fetch_finish(VOID *ctx, EFI_STATUS st)
{
	struct fetch *f = ctx;

	f->done = true;
	f->st = st;
}

/* url through iPXE's download protocol into f, polled for IPXE_FETCH_US
 * at most; at the bound the download is aborted and what came applies. */
static void ipxe_fetch(struct efi_ctx *e, const char *url, struct fetch *f)
{
	uint64_t per_us = pmh_tsc_per_us ? pmh_tsc_per_us : TSC_GUESS_PER_US;
	uint64_t t0 = hw_rdtsc();
	VOID *file = NULL;

	f->via = "iPXE's download protocol";
	f->st = uefi_call_wrapper(e->ipxe->start, 6, e->ipxe, (CHAR8 *)url, fetch_data,
				  fetch_finish, f, &file);
	if (f->st != EFI_SUCCESS)
		return;
	while (!f->done && (hw_rdtsc() - t0) / per_us < IPXE_FETCH_US)
		uefi_call_wrapper(e->ipxe->poll, 1, e->ipxe);
	if (!f->done) {
		char line[320];
		pmh_fmt(line, sizeof(line),
			"config: %s: no end after %llu s (%llu bytes so far): download stopped",
			f->origin, IPXE_FETCH_US / 1000000, (unsigned long long)f->size);
		out_line(line);
		uefi_call_wrapper(e->ipxe->abort, 3, e->ipxe, file, EFI_TIMEOUT);
		f->st = f->len == FILES_READ_MAX ? EFI_SUCCESS : EFI_TIMEOUT;
	}
}

/* Loaded by iPXE: pmuharness.cfg among the images it fetched (its file
 * system, e->dir), else downloaded beside the image. */
static void ipxe_read(struct efi_ctx *e, const char *name, struct fetch *f)
{
	char url[200];
	size_t at;

	if (e->dir) {
		CHAR16 wide[32];
		size_t i;
		char *got;
		UINTN len = 0, size = 0;

		for (i = 0; name[i] && i + 1 < sizeof(wide) / sizeof(wide[0]); i++)
			wide[i] = (CHAR16)name[i];
		wide[i] = 0;
		got = files_read(e->dir, wide, &len, &size, &f->st);
		if (got) {
			pmh_memcpy(f->buf, got, len);
			FreePool(got);
			f->len = len;
			f->size = size;
			pmh_fmt(f->origin, sizeof(f->origin), "iPXE image %s", name);
			f->via = "iPXE's file system (imgfetch)";
			return;
		}
	}
	/* The name alone resolves beside the image; its URL is shown where
	 * the image is iPXE's DHCP boot file (the same URL then). */
	if (boot_url(e, NULL, url, sizeof(url), &at) && ipxe_booted_file(e, url))
		boot_url(e, name, f->origin, sizeof(f->origin), &at);
	else
		pmh_fmt(f->origin, sizeof(f->origin), "%s (beside the image)", name);
	ipxe_fetch(e, name, f);
}

/* Loaded by the firmware's PXE: the size (tsize), then the whole file. */
static void pxe_read(struct efi_ctx *e, const char *name, struct fetch *f)
{
	EFI_PXE_BASE_CODE_DHCPV4_PACKET *p;
	EFI_IP_ADDRESS server = {0};
	UINT64 size = 0, got;
	size_t at;
	char *whole;

	f->via = "the firmware's PXE base code";
	f->st = EFI_UNSUPPORTED; /* an IPv6 boot */
	if (!boot_url(e, name, f->origin, sizeof(f->origin), &at))
		return;
	p = boot_packet(e->pxe->Mode);
	pmh_memcpy(server.v4.Addr, p->BootpSiAddr, 4);
	/* Absent (or a server without the tsize option): no file, as on a volume. */
	f->st =
	    uefi_call_wrapper(e->pxe->Mtftp, 10, e->pxe, EFI_PXE_BASE_CODE_TFTP_GET_FILE_SIZE, NULL,
			      FALSE, &size, NULL, &server, (UINT8 *)f->origin + at, NULL, FALSE);
	if (f->st != EFI_SUCCESS)
		return;
	if (size > PXE_WHOLE_MAX) {
		f->st = EFI_BAD_BUFFER_SIZE;
		return;
	}
	whole = size > FILES_READ_MAX ? AllocatePool(size + 1) : f->buf;
	got = whole == f->buf ? FILES_READ_MAX : size; /* in: the buffer; out: bytes read */
	f->st = whole ? uefi_call_wrapper(e->pxe->Mtftp, 10, e->pxe,
					  EFI_PXE_BASE_CODE_TFTP_READ_FILE, whole, FALSE, &got,
					  NULL, &server, (UINT8 *)f->origin + at, NULL, FALSE)
		      : EFI_OUT_OF_RESOURCES;
	f->size = got;
	f->len = got < FILES_READ_MAX ? (UINTN)got : FILES_READ_MAX;
	if (whole && whole != f->buf) {
		pmh_memcpy(f->buf, whole, f->len);
		FreePool(whole);
	}
}

/* Why no config was read, in words. */
static const char *why_none(EFI_STATUS st)
{
	switch (st) {
	case EFI_BAD_BUFFER_SIZE:
		return "larger than 16 MiB, not fetched";
	case EFI_TIMEOUT:
		return "timed out";
	case EFI_UNSUPPORTED:
		return "not supported (an IPv6 boot, or a URL iPXE cannot open)";
	case EFI_TFTP_ERROR: /* the server's TFTP ERROR packet (RFC 1350) */
		return "refused by the TFTP server (no such file?)";
	default:
		return files_status_name(st);
	}
}

/* "config: ..." saying where the config came from, or why none did. */
static void source_line(const struct fetch *f)
{
	char line[400];

	if (f->st == EFI_SUCCESS)
		pmh_fmt(line, sizeof(line), "config: %s read through %s (%llu bytes)", f->origin,
			f->via, (unsigned long long)f->size);
	else
		pmh_fmt(line, sizeof(line),
			"config: none: %s through %s: %s (EFI status 0x%llx): the defaults apply",
			f->origin, f->via, why_none(f->st), (unsigned long long)f->st);
	out_line(line);
}

char *net_read(struct efi_ctx *e, const char *name, UINTN *len_out, UINTN *size_out, char *origin,
	       size_t cap)
{
	struct fetch f = {0};

	boot_line(e);
	f.buf = AllocateZeroPool(FILES_READ_MAX + 1);
	if (!f.buf)
		return NULL;
	pmh_strlcpy(f.origin, name, sizeof(f.origin));
	if (e->ipxe)
		ipxe_read(e, name, &f);
	else
		pxe_read(e, name, &f);
	source_line(&f);
	pmh_strlcpy(origin, f.origin, cap);
	if (f.st != EFI_SUCCESS) {
		FreePool(f.buf);
		return NULL;
	}
	f.buf[f.len] = 0;
	*len_out = f.len;
	*size_out = f.size > f.len ? (UINTN)f.size : f.len;
	return f.buf;
}

bool net_results_note(struct efi_ctx *e)
{
	char url[200], line[400];
	size_t at;

	if (!e->pxe && !e->ipxe)
		return false;
	if (!boot_url(e, NULL, url, sizeof(url), &at))
		pmh_strlcpy(url, "IPv6", sizeof(url));
	if (e->ipxe && !ipxe_booted_file(e, url))
		image_name(e, url, sizeof(url));
	pmh_fmt(line, sizeof(line),
		"note: loaded over the network (%s%s): %s, no results files; results are on the "
		"console and serial only",
		e->ipxe ? "by iPXE, " : "", url,
		e->ipxe ? "iPXE's file system is read-only" : "no volume to write to");
	out_line(line);
	return true;
}
