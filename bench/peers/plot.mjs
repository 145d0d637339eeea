// bench/peers/plot.mjs - draw the comparison's ratios as a PNG bar chart, without dependencies
// (a built-in 5x7 font, zlib from Node).
//
//   node plot.mjs IN.tsv OUT.png "TITLE"
//
// IN.tsv: one line per workload and client count: label, tablestore/raw, tablestore/Azurite,
// gateway/Azurite through the SDK (empty when not measured). Bars are on a log scale; vertical
// lines mark 1x, 5x (the SQL functions' Azurite target) and 10x (the gateway's).
import fs from 'node:fs';
import zlib from 'node:zlib';

const FONT = {
	'0': ['.###.', '#...#', '#..##', '#.#.#', '##..#', '#...#', '.###.'],
	'1': ['..#..', '.##..', '..#..', '..#..', '..#..', '..#..', '.###.'],
	'2': ['.###.', '#...#', '....#', '...#.', '..#..', '.#...', '#####'],
	'3': ['####.', '....#', '....#', '.###.', '....#', '....#', '####.'],
	'4': ['...#.', '..##.', '.#.#.', '#..#.', '#####', '...#.', '...#.'],
	'5': ['#####', '#....', '####.', '....#', '....#', '#...#', '.###.'],
	'6': ['..##.', '.#...', '#....', '####.', '#...#', '#...#', '.###.'],
	'7': ['#####', '....#', '...#.', '..#..', '.#...', '.#...', '.#...'],
	'8': ['.###.', '#...#', '#...#', '.###.', '#...#', '#...#', '.###.'],
	'9': ['.###.', '#...#', '#...#', '.####', '....#', '...#.', '.##..'],
	A: ['.###.', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
	B: ['####.', '#...#', '#...#', '####.', '#...#', '#...#', '####.'],
	C: ['.###.', '#...#', '#....', '#....', '#....', '#...#', '.###.'],
	D: ['###..', '#..#.', '#...#', '#...#', '#...#', '#..#.', '###..'],
	E: ['#####', '#....', '#....', '####.', '#....', '#....', '#####'],
	F: ['#####', '#....', '#....', '####.', '#....', '#....', '#....'],
	G: ['.###.', '#...#', '#....', '#.###', '#...#', '#...#', '.####'],
	H: ['#...#', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
	I: ['.###.', '..#..', '..#..', '..#..', '..#..', '..#..', '.###.'],
	J: ['..###', '...#.', '...#.', '...#.', '...#.', '#..#.', '.##..'],
	K: ['#...#', '#..#.', '#.#..', '##...', '#.#..', '#..#.', '#...#'],
	L: ['#....', '#....', '#....', '#....', '#....', '#....', '#####'],
	M: ['#...#', '##.##', '#.#.#', '#.#.#', '#...#', '#...#', '#...#'],
	N: ['#...#', '#...#', '##..#', '#.#.#', '#..##', '#...#', '#...#'],
	O: ['.###.', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
	P: ['####.', '#...#', '#...#', '####.', '#....', '#....', '#....'],
	Q: ['.###.', '#...#', '#...#', '#...#', '#.#.#', '#..#.', '.##.#'],
	R: ['####.', '#...#', '#...#', '####.', '#.#..', '#..#.', '#...#'],
	S: ['.####', '#....', '#....', '.###.', '....#', '....#', '####.'],
	T: ['#####', '..#..', '..#..', '..#..', '..#..', '..#..', '..#..'],
	U: ['#...#', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
	V: ['#...#', '#...#', '#...#', '#...#', '#...#', '.#.#.', '..#..'],
	W: ['#...#', '#...#', '#...#', '#.#.#', '#.#.#', '#.#.#', '.#.#.'],
	X: ['#...#', '#...#', '.#.#.', '..#..', '.#.#.', '#...#', '#...#'],
	Y: ['#...#', '#...#', '.#.#.', '..#..', '..#..', '..#..', '..#..'],
	Z: ['#####', '....#', '...#.', '..#..', '.#...', '#....', '#####'],
	' ': ['.....', '.....', '.....', '.....', '.....', '.....', '.....'],
	'.': ['.....', '.....', '.....', '.....', '.....', '.##..', '.##..'],
	',': ['.....', '.....', '.....', '.....', '.##..', '..#..', '.#...'],
	'/': ['.....', '....#', '...#.', '..#..', '.#...', '#....', '.....'],
	'-': ['.....', '.....', '.....', '#####', '.....', '.....', '.....'],
	':': ['.....', '.##..', '.##..', '.....', '.##..', '.##..', '.....'],
	'(': ['...#.', '..#..', '.#...', '.#...', '.#...', '..#..', '...#.'],
	')': ['.#...', '..#..', '...#.', '...#.', '...#.', '..#..', '.#...'],
	'=': ['.....', '.....', '#####', '.....', '#####', '.....', '.....'],
	'>': ['.#...', '..#..', '...#.', '....#', '...#.', '..#..', '.#...'],
	'<': ['...#.', '..#..', '.#...', '#....', '.#...', '..#..', '...#.'],
	'_': ['.....', '.....', '.....', '.....', '.....', '.....', '#####'],
	'+': ['.....', '..#..', '..#..', '#####', '..#..', '..#..', '.....'],
};

class Canvas {
	constructor(w, h) {
		this.w = w;
		this.h = h;
		this.px = Buffer.alloc(w * h * 3, 255);
	}

	rect(x, y, w, h, [r, g, b]) {
		for (let j = Math.max(0, Math.round(y)); j < Math.min(this.h, Math.round(y + h)); j++)
			for (let i = Math.max(0, Math.round(x)); i < Math.min(this.w, Math.round(x + w)); i++) {
				const o = (j * this.w + i) * 3;
				this.px[o] = r; this.px[o + 1] = g; this.px[o + 2] = b;
			}
	}

	text(x, y, s, color, scale = 2) {
		for (const ch of String(s).toUpperCase()) {
			const g = FONT[ch] ?? FONT[' '];
			g.forEach((row, j) => [...row].forEach((c, i) => {
				if (c === '#') this.rect(x + i * scale, y + j * scale, scale, scale, color);
			}));
			x += 6 * scale;
		}
		return x;
	}

	png() {
		const raw = Buffer.alloc((this.w * 3 + 1) * this.h);
		for (let j = 0; j < this.h; j++) {
			raw[j * (this.w * 3 + 1)] = 0;
			this.px.copy(raw, j * (this.w * 3 + 1) + 1, j * this.w * 3, (j + 1) * this.w * 3);
		}
		const chunk = (type, data) => {
			const len = Buffer.alloc(4);
			len.writeUInt32BE(data.length);
			const td = Buffer.concat([Buffer.from(type), data]);
			const crc = Buffer.alloc(4);
			crc.writeUInt32BE(crc32(td));
			return Buffer.concat([len, td, crc]);
		};
		const ihdr = Buffer.alloc(13);
		ihdr.writeUInt32BE(this.w, 0);
		ihdr.writeUInt32BE(this.h, 4);
		ihdr[8] = 8; ihdr[9] = 2;	// 8-bit RGB
		return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr),
			chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
	}
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
	return c >>> 0;
});
function crc32(buf) {
	let c = 0xFFFFFFFF;
	for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xFF] ^ (c >>> 8);
	return (c ^ 0xFFFFFFFF) >>> 0;
}

const [input, output, title] = process.argv.slice(2);
const rows = fs.readFileSync(input, 'utf8').trim().split('\n').map((l) => l.split('\t'))
	.map(([label, raw, az, gw]) => ({ label, raw: parseFloat(raw), az: parseFloat(az), gw: parseFloat(gw) }));

const BLUE = [38, 110, 190], ORANGE = [230, 130, 30], GREEN = [40, 150, 70], GREY = [200, 200, 200], DARK = [40, 40, 40], RED = [200, 40, 40];
const left = 250, right = 40, top = 70, rowH = 46, barH = 12;
const width = 1100, height = top + rows.length * rowH + 70;
const lo = Math.log10(0.1), hi = Math.log10(200);
const X = (v) => left + (Math.log10(Math.min(Math.max(v, 0.1), 200)) - lo) / (hi - lo) * (width - left - right);
const c = new Canvas(width, height);
c.text(20, 15, title, DARK, 2);
c.rect(20, 42, 14, 10, BLUE);
c.text(40, 42, 'TABLESTORE / RAW POSTGRES', DARK, 1.5);
c.rect(330, 42, 14, 10, ORANGE);
c.text(350, 42, 'TABLESTORE SQL / AZURITE', DARK, 1.5);
c.rect(620, 42, 14, 10, GREEN);
c.text(640, 42, 'GATEWAY / AZURITE (SAME SDK DRIVER)', DARK, 1.5);
for (const v of [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200]) {
	c.rect(X(v), top - 5, 1, rows.length * rowH + 10, v === 1 ? DARK : v === 5 || v === 10 ? RED : GREY);
	c.text(X(v) - 8, height - 55, v < 1 ? String(v).replace('0.', '.') : String(v), DARK, 1.5);
}
c.text(left, height - 30, 'RATIO (LOG SCALE, ABOVE 1 = TABLESTORE FASTER, RED LINES = 5X AND 10X)', DARK, 1.5);
rows.forEach((r, k) => {
	const y = top + k * rowH;
	c.text(20, y + 8, r.label, DARK, 1.5);
	for (const [v, color, dy] of [[r.raw, BLUE, 2], [r.az, ORANGE, 4 + barH], [r.gw, GREEN, 6 + 2 * barH]]) {
		if (!Number.isFinite(v)) continue;
		const x0 = X(1), x1 = X(v);
		c.rect(Math.min(x0, x1), y + dy, Math.max(2, Math.abs(x1 - x0)), barH, color);
		c.text(Math.max(x0, x1) + 4, y + dy + 1, v.toFixed(2), DARK, 1.5);
	}
});
fs.writeFileSync(output, c.png());
