/* Output on a PC (the BIOS kernel): COM1 and the VGA text screen, written directly
 * (no BIOS call: we run in protected mode). */
#include "pc.h"

/* COM1's I/O base and registers (PC16550D data sheet). */
#define COM1		 0x3f8
#define UART_DATA	 0
#define UART_IER	 1
#define UART_FCR	 2
#define UART_LCR	 3
#define UART_MCR	 4
#define UART_LSR	 5
#define LCR_DLAB	 0x80
#define LCR_8N1		 0x03
#define FCR_ENABLE_CLEAR 0xc7 /* FIFOs on and cleared, 14-byte trigger */
#define MCR_DTR_RTS	 0x03
#define LSR_THRE	 0x20 /* transmit holding register empty */
#define BAUD_DIVISOR	 1    /* 115200 baud from the 1.8432 MHz clock */
/* A missing UART never says it is ready: give up after this many polls. */
#define UART_POLLS 100000

#define VGA_ATTR 0x0700 /* light grey on black */

static unsigned row;

void con_init(void)
{
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, LCR_DLAB);
	outb(COM1 + UART_DATA, BAUD_DIVISOR);
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, LCR_8N1);
	outb(COM1 + UART_FCR, FCR_ENABLE_CLEAR);
	outb(COM1 + UART_MCR, MCR_DTR_RTS);
	for (unsigned i = 0; i < VGA_COLS * VGA_ROWS; i++)
		VGA_TEXT[i] = VGA_ATTR | ' ';
	row = 0;
	vga_screen_init();
}

static void com1_putc(char c)
{
	for (unsigned i = 0; i < UART_POLLS && !(inb(COM1 + UART_LSR) & LSR_THRE); i++)
		;
	outb(COM1 + UART_DATA, (uint8_t)c);
}

/* One row of the screen, scrolling up when it is full. */
static void vga_line(const char *s)
{
	if (row == VGA_ROWS) {
		for (unsigned i = 0; i < VGA_COLS * (VGA_ROWS - 1); i++)
			VGA_TEXT[i] = VGA_TEXT[i + VGA_COLS];
		row = VGA_ROWS - 1;
	}
	volatile uint16_t *cell = VGA_TEXT + row * VGA_COLS;
	unsigned c = 0;
	for (; c < VGA_COLS && s[c]; c++)
		cell[c] = VGA_ATTR | (uint8_t)s[c];
	for (; c < VGA_COLS; c++)
		cell[c] = VGA_ATTR | ' ';
	row++;
}

static void com1_line(const char *s)
{
	for (const char *p = s; *p; p++)
		com1_putc(*p);
	com1_putc('\r');
	com1_putc('\n');
}

/* COM1 first, then the screen: the layout once a run has started, the
 * scrolling lines before. */
static void emit(const char *s)
{
	com1_line(s);
	if (vga_screen_active())
		vga_screen_paint();
	else
		vga_line(s);
}

void con_line(const char *s)
{
	vga_screen_line(s);
	emit(s);
}

void con_prompt(void *ctx, const char *s)
{
	(void)ctx;
	vga_screen_prompt(s);
	emit(s);
}

/* Memory only for the layout (painted with the next line). */
void con_fatal(const char *s)
{
	com1_line(s);
	vga_screen_fatal(s);
	if (!vga_screen_active())
		vga_line(s);
}
