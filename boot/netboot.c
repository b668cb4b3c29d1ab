/* A network boot: the image came over TFTP (PXE), so its device has no file
 * system. The config file is fetched from the boot file's own folder on
 * the same TFTP server through the PXE base code that loaded the image;
 * results stay on the screen and serial port. IPv4 only. */
#include "platform.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

/* The BOOTP "file" field is 128 bytes and need not end in a NUL
 * (RFC 951 / RFC 2131 section 2, the DHCP message format). */
#define BOOTFILE_MAX 128

void net_probe(struct efi_ctx *e, EFI_HANDLE dev)
{
	EFI_PXE_BASE_CODE *pxe = NULL;

	e->pxe = NULL;
	if (uefi_call_wrapper(BS->HandleProtocol, 3, dev, &PxeBaseCodeProtocol, (void **)&pxe) ==
		EFI_SUCCESS &&
	    pxe && pxe->Mode && pxe->Mode->Started)
		e->pxe = pxe;
}

/* The DHCP packet that named the boot file: a PXE boot server's reply, a
 * proxy DHCP offer, then the DHCP ack (the order a PXE client takes them
 * in, UEFI spec, EFI_PXE_BASE_CODE_PROTOCOL.Dhcp/Discover); NULL over IPv6. */
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

/* "tftp://A.B.C.D/" and the boot file's path (folder kept, name replaced
 * by name when it is not NULL) into url; false without an IPv4 packet. */
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
	n = pmh_fmt(url, cap, "tftp://%u.%u.%u.%u/", p->BootpSiAddr[0], p->BootpSiAddr[1],
		    p->BootpSiAddr[2], p->BootpSiAddr[3]);
	*path_at = n < cap ? n : cap - 1;
	pmh_fmt(url + *path_at, cap - *path_at, "%s%s", file[0] == '/' ? file + 1 : file,
		name ? name : "");
	return true;
}

bool net_results_note(struct efi_ctx *e)
{
	char url[200], line[360];
	size_t at;

	if (!e->pxe)
		return false;
	if (!boot_url(e, NULL, url, sizeof(url), &at))
		pmh_strlcpy(url, "IPv6", sizeof(url));
	pmh_fmt(line, sizeof(line),
		"note: loaded over the network (%s): no volume to write to, no results files; "
		"results are on the console and serial only",
		url);
	out_line(line);
	return true;
}

char *net_read(struct efi_ctx *e, const char *name, UINTN *len_out, UINTN *size_out, char *origin,
	       size_t cap)
{
	EFI_PXE_BASE_CODE_DHCPV4_PACKET *p;
	EFI_IP_ADDRESS server = {0};
	UINT64 size = 0, got = FILES_READ_MAX;
	size_t at;
	char *buf;
	EFI_STATUS st;

	if (!boot_url(e, name, origin, cap, &at))
		return NULL;
	p = boot_packet(e->pxe->Mode);
	pmh_memcpy(server.v4.Addr, p->BootpSiAddr, 4);
	/* Absent (or a server without the tsize option): no file, as on a volume. */
	st =
	    uefi_call_wrapper(e->pxe->Mtftp, 10, e->pxe, EFI_PXE_BASE_CODE_TFTP_GET_FILE_SIZE, NULL,
			      FALSE, &size, NULL, &server, (UINT8 *)origin + at, NULL, FALSE);
	if (st != EFI_SUCCESS || !(buf = AllocatePool(FILES_READ_MAX + 1)))
		return NULL;
	*len_out = 0;
	*size_out = (UINTN)size;
	/* Larger than the limit: what a short buffer holds is not defined
	 * (UEFI spec, Mtftp TFTP_READ_FILE), so nothing is parsed and the
	 * parser reports the cut at line 1. */
	if (size <= FILES_READ_MAX) {
		st = uefi_call_wrapper(e->pxe->Mtftp, 10, e->pxe, EFI_PXE_BASE_CODE_TFTP_READ_FILE,
				       buf, FALSE, &got, NULL, &server, (UINT8 *)origin + at, NULL,
				       FALSE);
		if (st != EFI_SUCCESS) {
			char line[280];
			pmh_fmt(line, sizeof(line),
				"config: %s: TFTP read failed (EFI status 0x%llx): not read",
				origin, (unsigned long long)st);
			out_line(line);
			FreePool(buf);
			return NULL;
		}
		*len_out = *size_out = (UINTN)got;
	}
	buf[*len_out] = 0;
	return buf;
}
