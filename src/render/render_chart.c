/*
 * render_chart.c: a result drawn as a horizontal bar chart (:chart). At the terminal a
 * line per bar: the label (cut with an ellipsis to its column), for several value columns
 * the column's name, then the bar in Unicode eighth blocks (a bar's end falls on an eighth
 * of a character) or in '#', and the value at the bar's end. Negative values grow to the
 * left of a zero axis, with their values on the left. In the html mode the same chart is an
 * SVG image whose every text is escaped. A histogram is a chart of counts over bins at
 * round boundaries (render_hist). Pure functions of their input: the session chooses the
 * columns and says what it left out. See render.h.
 */
#include "base/vis.h"
#include "render/render_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ---- */

/* A value as the chart writes it: an integer without decimals, else six digits. */
static void fmt_value(char *buf, size_t n, double v)
{
	if (v == 0)
		v = 0;   /* no "-0" */
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.6g", v);
}

/* ---- the terminal ---- */

/* A colour for each value column, in turn (cyan, yellow, magenta, green, blue, red). */
static const char *const palette[] = {"\033[36m", "\033[33m", "\033[35m", "\033[32m",
                                      "\033[34m", "\033[31m"};
#define NPALETTE (sizeof palette / sizeof *palette)

/* text cut to w columns with an ellipsis and padded to w. */
static void put_cell(SBuf *b, const char *text, int w, int unicode)
{
	size_t n = strlen(text);
	size_t got = render_put_line(b, text, n, (size_t)w, unicode);
	for (size_t i = got; i < (size_t)w; i++)
		sb_putc(b, ' ');
}

static void spaces(SBuf *b, int n)
{
	for (int i = 0; i < n; i++)
		sb_putc(b, ' ');
}

/* A bar of eighths/8 characters growing right: full blocks and the eighth block its end
   falls on; in ASCII, '#' for each whole character (eighths rounded). Returns the columns. */
static int bar_right(SBuf *b, long eighths, int unicode)
{
	if (!unicode) {
		long cells = (eighths + 4) / 8;
		for (long i = 0; i < cells; i++)
			sb_putc(b, '#');
		return (int)cells;
	}
	long full = eighths / 8, part = eighths % 8;
	for (long i = 0; i < full; i++)
		sb_puts(b, "\xE2\x96\x88");
	if (part) {
		char c[4] = {'\xE2', '\x96', (char)(0x90 - part), 0};   /* U+258F (1/8) .. U+2589 */
		sb_puts(b, c);
	}
	return (int)(full + (part ? 1 : 0));
}

/* A bar of cells whole characters (a bar to the left of the axis ends on the axis, and
   Unicode has no left-growing eighths). */
static void bar_cells(SBuf *b, long cells, int unicode)
{
	for (long i = 0; i < cells; i++)
		sb_puts(b, unicode ? "\xE2\x96\x88" : "#");
}

static int text_width(const char *s)
{
	return (int)render_width(s, strlen(s));
}

void render_chart(SBuf *out, const RenderChart *c, const RenderChartOpts *o)
{
	int width = o->width < RENDER_CHART_MIN_WIDTH ? RENDER_CHART_MIN_WIDTH : o->width;
	int groups = c->nseries > 1;
	double maxpos = 0, maxneg = 0;
	int vp = 0, vn = 0, lw = text_width(c->label_name), sw = 0;
	char buf[64];
	for (long i = 0; i < c->nrows; i++) {
		const char *l = c->labels[i] ? c->labels[i] : "NULL";
		int w = text_width(l);
		lw = w > lw ? w : lw;
		for (int j = 0; j < c->nseries; j++) {
			size_t k = (size_t)i * (size_t)c->nseries + (size_t)j;
			if (!c->has[k])
				continue;
			double v = c->values[k];
			fmt_value(buf, sizeof buf, v);
			int w2 = (int)strlen(buf);
			if (v < 0) {
				maxneg = -v > maxneg ? -v : maxneg;
				vn = w2 > vn ? w2 : vn;
			} else {
				maxpos = v > maxpos ? v : maxpos;
				vp = w2 > vp ? w2 : vp;
			}
		}
	}
	for (int j = 0; groups && j < c->nseries; j++) {
		int w = text_width(c->series[j]);
		sw = w > sw ? w : sw;
	}
	/* the label column takes at most two fifths of the width, a column's name a fifth */
	int lmax = width * 2 / 5, smax = width / 5;
	lw = lw > lmax ? lmax : lw;
	sw = sw > smax ? smax : sw;
	int neg = maxneg > 0;
	int fixed = lw + 1 + (groups ? sw + 1 : 0);
	int bars = width - fixed - (vp ? vp + 1 : 0) - (neg ? vn + 2 : 0);
	if (bars < 2)
		bars = 2;
	int bn = neg ? (int)lround(bars * maxneg / (maxneg + maxpos)) : 0;
	if (neg && bn < 1)
		bn = 1;
	int bp = bars - bn;
	int zone = neg ? vn + 1 + bn : 0;   /* left of the axis: value, blank, bar */

	/* the header: the label column's name over the labels, the value's over the bars */
	SBuf line = SBUF_INIT;
	if (o->color)
		sb_puts(&line, RENDER_BOLD);
	put_cell(&line, c->label_name, lw, o->unicode);
	sb_putc(&line, ' ');
	if (!groups) {
		int room = width - fixed - zone - (neg ? 1 : 0);
		spaces(&line, zone + (neg ? 1 : 0));
		render_put_line(&line, c->series[0], strlen(c->series[0]),
		                (size_t)(room > 1 ? room : 1), o->unicode);
	}
	while (line.len && line.s[line.len - 1] == ' ')
		line.len--;
	if (o->color)
		sb_puts(&line, RENDER_RESET);
	sb_putn(out, line.s, line.len);
	sb_putc(out, '\n');

	for (long i = 0; i < c->nrows; i++) {
		int drawn = 0;
		for (int j = 0; j < c->nseries; j++) {
			size_t k = (size_t)i * (size_t)c->nseries + (size_t)j;
			if (!c->has[k])
				continue;   /* NULL: no bar (the caller says how many) */
			double v = c->values[k];
			sb_truncate(&line, 0);
			put_cell(&line, drawn ? "" : c->labels[i] ? c->labels[i] : "NULL", lw, o->unicode);
			sb_putc(&line, ' ');
			if (groups) {
				put_cell(&line, c->series[j], sw, o->unicode);
				sb_putc(&line, ' ');
			}
			fmt_value(buf, sizeof buf, v);
			const char *on = o->color ? palette[(size_t)j % NPALETTE] : "";
			const char *off = o->color ? RENDER_RESET : "";
			if (neg) {
				if (v < 0) {
					long cells = lround(-v / maxneg * bn);
					spaces(&line, zone - (int)cells - 1 - (int)strlen(buf));
					sb_printf(&line, "%s ", buf);
					sb_puts(&line, on);
					bar_cells(&line, cells, o->unicode);
					sb_puts(&line, off);
				} else {
					spaces(&line, zone);
				}
				sb_puts(&line, o->unicode ? "\xE2\x94\x82" : "|");
			}
			if (v >= 0) {
				long eighths = maxpos > 0 ? lround(v / maxpos * bp * 8) : 0;
				sb_puts(&line, on);
				bar_right(&line, eighths, o->unicode);
				sb_puts(&line, off);
				sb_printf(&line, " %s", buf);
			}
			while (line.len && line.s[line.len - 1] == ' ')
				line.len--;
			sb_putn(out, line.s, line.len);
			sb_putc(out, '\n');
			drawn = 1;
		}
	}
	sb_free(&line);
}

/* ---- SVG ---- */

/* Text for XML: & < > " ' as entities, control characters and invalid UTF-8 as U+FFFD
   (XML cannot hold them), at most max characters, the rest as an ellipsis. */
static void xml_text(SBuf *b, const char *s, size_t max)
{
	size_t n = strlen(s), chars = 0;
	for (size_t i = 0; i < n;) {
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		if (max && chars == max) {
			sb_puts(b, "\xE2\x80\xA6");
			break;
		}
		if (cp == '&')
			sb_puts(b, "&amp;");
		else if (cp == '<')
			sb_puts(b, "&lt;");
		else if (cp == '>')
			sb_puts(b, "&gt;");
		else if (cp == '"')
			sb_puts(b, "&quot;");
		else if (cp == '\'')
			sb_puts(b, "&#39;");
		else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || cp == 0xFFFE ||
		         cp == 0xFFFF)
			sb_puts(b, "\xEF\xBF\xBD");
		else
			sb_putn(b, s + i, k);
		i += k;
		chars++;
	}
}

static const char *const svg_palette[] = {"#4e79a7", "#f28e2b", "#76b7b2", "#e15759",
                                          "#59a14f", "#b07aa1"};
#define SVG_LABEL_CHARS 30

void render_chart_svg(SBuf *out, const RenderChart *c)
{
	int groups = c->nseries > 1;
	double maxpos = 0, maxneg = 0;
	size_t lc = 4, sc = 0, vc = 1;
	char buf[64];
	long lines = 0;
	for (long i = 0; i < c->nrows; i++) {
		size_t n = c->labels[i] ? strlen(c->labels[i]) : 4;
		lc = n > lc ? n : lc;
		for (int j = 0; j < c->nseries; j++) {
			size_t k = (size_t)i * (size_t)c->nseries + (size_t)j;
			if (!c->has[k])
				continue;
			lines++;
			double v = c->values[k];
			if (v < 0)
				maxneg = -v > maxneg ? -v : maxneg;
			else
				maxpos = v > maxpos ? v : maxpos;
			fmt_value(buf, sizeof buf, v);
			vc = strlen(buf) > vc ? strlen(buf) : vc;
		}
	}
	for (int j = 0; groups && j < c->nseries; j++)
		sc = strlen(c->series[j]) > sc ? strlen(c->series[j]) : sc;
	lc = lc > SVG_LABEL_CHARS ? SVG_LABEL_CHARS : lc;
	sc = sc > SVG_LABEL_CHARS ? SVG_LABEL_CHARS : sc;
	/* pixels: 7 a character of 12-pixel text, 20 a bar's line, 400 the bars' span */
	double lx = 8, sx = lx + 7.0 * (double)lc + 10, bx = sx + (groups ? 7.0 * (double)sc + 10 : 0);
	double span = 400, vw = 7.0 * (double)vc + 12;
	double neg = maxneg > 0 ? (maxneg / (maxneg + maxpos)) * span : 0;
	if (maxneg > 0)
		bx += vw;   /* room for a negative bar's value on its left */
	double axis = bx + neg, top = groups ? 48 : 28;
	double w = bx + span + vw + 8, h = top + 20.0 * (double)lines + 8;
	sb_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"suql-chart\" "
	          "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
	          "font-family=\"sans-serif\" font-size=\"12\">\n", w, h, w, h);
	SBuf title = SBUF_INIT;
	for (int j = 0; j < c->nseries; j++) {
		if (j)
			sb_puts(&title, ", ");
		xml_text(&title, c->series[j], 0);
	}
	sb_puts(&title, " by ");
	xml_text(&title, c->label_name, 0);
	sb_printf(out, "<title>%s</title>\n", sb_str(&title));
	sb_printf(out, "<text x=\"%.1f\" y=\"16\" font-weight=\"bold\">%s</text>\n", lx,
	          sb_str(&title));
	sb_free(&title);
	for (int j = 0; groups && j < c->nseries; j++) {   /* the legend */
		double x = lx + 140.0 * j;
		sb_printf(out, "<rect x=\"%.1f\" y=\"26\" width=\"10\" height=\"10\" fill=\"%s\"/>"
		          "<text x=\"%.1f\" y=\"35\">", x, svg_palette[(size_t)j % 6], x + 14);
		xml_text(out, c->series[j], 16);
		sb_puts(out, "</text>\n");
	}
	if (maxneg > 0)
		sb_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		          "stroke=\"#555\"/>\n", axis, top - 4, axis, h - 4);
	double y = top;
	for (long i = 0; i < c->nrows; i++) {
		int drawn = 0;
		for (int j = 0; j < c->nseries; j++) {
			size_t k = (size_t)i * (size_t)c->nseries + (size_t)j;
			if (!c->has[k])
				continue;
			double v = c->values[k];
			if (!drawn) {
				sb_printf(out, "<text x=\"%.1f\" y=\"%.1f\">", lx, y + 12);
				xml_text(out, c->labels[i] ? c->labels[i] : "NULL", SVG_LABEL_CHARS);
				sb_puts(out, "</text>\n");
			}
			if (groups) {
				sb_printf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">", sx, y + 12);
				xml_text(out, c->series[j], SVG_LABEL_CHARS);
				sb_puts(out, "</text>\n");
			}
			double len = v < 0 ? (maxneg > 0 ? -v / maxneg * neg : 0)
			                   : (maxpos > 0 ? v / maxpos * (span - neg) : 0);
			double x = v < 0 ? axis - len : axis;
			fmt_value(buf, sizeof buf, v);
			sb_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"14\" "
			          "fill=\"%s\"><title>%s</title></rect>\n", x, y + 2, len,
			          svg_palette[(size_t)j % 6], buf);
			if (v < 0)
				sb_printf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
				          x - 4, y + 12, buf);
			else
				sb_printf(out, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + len + 4, y + 12,
				          buf);
			y += 20;
			drawn = 1;
		}
	}
	sb_puts(out, "</svg>\n");
}

/* ---- histograms ---- */

/* The smallest round step (1, 2, 2.5 or 5 times a power of ten; for integers 1, 2 or 5
   times one, at least 1) at least raw. */
static double round_step(double raw, int integers)
{
	if (!(raw > 0))
		return 1;
	double p = pow(10, floor(log10(raw)));
	static const double real_steps[] = {1, 2, 2.5, 5, 10};
	static const double int_steps[] = {1, 2, 5, 10};
	const double *m = integers ? int_steps : real_steps;
	int nm = integers ? 4 : 5;
	for (int i = 0; i < nm; i++) {
		double s = m[i] * p;
		if (integers && s < 1)
			continue;
		if (s >= raw * (1 - 1e-9))
			return integers && s < 1 ? 1 : s;
	}
	return 10 * p;
}

/* The bin of v: floor(v / step), a hair of rounding allowed. */
static double slot(double v, double step)
{
	return floor(v / step + 1e-9);
}

void render_hist(RenderHist *h, const double *v, long n, int bins, int integers, int unicode)
{
	memset(h, 0, sizeof *h);
	if (n <= 0)
		return;
	double lo = v[0], hi = v[0];
	for (long i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	if (bins < 1)
		bins = 1;
	double step = round_step((hi - lo) / bins, integers);
	if (integers && hi - lo + 1 <= bins)
		step = 1;
	/* bin k holds [k * step, (k + 1) * step): boundaries are multiples of the step, and a
	   value on one (4.3 / 0.05 is 85.999...) falls in the bin it starts */
	double k0 = slot(lo, step);
	long nb = (long)(slot(hi, step) - k0) + 1;
	if (nb < 1)
		nb = 1;
	h->nbins = (int)nb;
	h->step = step;
	h->counts = xcalloc((size_t)nb, sizeof *h->counts);
	h->labels = xcalloc((size_t)nb, sizeof *h->labels);
	for (long i = 0; i < n; i++) {
		long b = (long)(slot(v[i], step) - k0);
		b = b < 0 ? 0 : b >= nb ? nb - 1 : b;
		h->counts[b] += 1;
	}
	char a[64], z[64];
	for (long b = 0; b < nb; b++) {
		double from = (k0 + (double)b) * step, to = (k0 + (double)b + 1) * step;
		fmt_value(a, sizeof a, from);
		if (integers) {
			fmt_value(z, sizeof z, to - 1);
			h->labels[b] = step == 1 ? xstrdup(a)
			                         : xprintf("%s%s%s", a, unicode ? "\xE2\x80\x93" : "-", z);
		} else {
			fmt_value(z, sizeof z, to);
			h->labels[b] = xprintf("[%s, %s)", a, z);
		}
	}
}

void render_hist_free(RenderHist *h)
{
	for (int i = 0; i < h->nbins; i++)
		free(h->labels[i]);
	free(h->labels);
	free(h->counts);
	memset(h, 0, sizeof *h);
}
