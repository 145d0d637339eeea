// cases/limits.mjs - the data-model limits through the SDK, each at its boundary: property count,
// String and Binary size, entity size, property names; and a 5 MiB request.
import { accepts, eq, fail, rejects, test } from '../lib/harness.mjs';

const DM = 'doc: Understanding the Table service data model (property limitations)';
const E = { partitionKey: 'p', rowKey: 'r' };

function manyProps(n) {
	const e = { ...E };
	for (let i = 0; i < n; i++) e[`p${String(i).padStart(3, '0')}`] = i;
	return e;
}

test('limits.properties-252', '252 custom properties are accepted',
	`${DM}: up to 255 properties, 3 of them system properties`, async (ctx) => {
		const tc = await ctx.newTable();
		await accepts(tc.createEntity(manyProps(252)), '252 properties');
		const back = await tc.getEntity('p', 'r');
		eq(Object.keys(back).filter((k) => /^p\d{3}$/.test(k)).length, 252, 'properties read back');
	});

test('limits.properties-253', '253 custom properties are 400 TooManyProperties',
	`${DM}; doc: error codes: TooManyProperties 400`, async (ctx) => {
		const tc = await ctx.newTable();
		await rejects(tc.createEntity(manyProps(253)), { status: 400, code: 'TooManyProperties' }, 'createEntity with 253 properties');
	});

test('limits.properties-253-by-merge', 'a merge that brings an entity to 253 properties is 400 TooManyProperties',
	`${DM}: the limit applies to the stored entity; contract §2`, async (ctx) => {
		const tc = await ctx.newTable();
		await tc.createEntity(manyProps(252));
		await rejects(tc.updateEntity({ ...E, extra: 1 }, 'Merge'), { status: 400, code: 'TooManyProperties' }, 'merge adding a 253rd property');
	});

test('limits.string-size', 'a String of 32 768 UTF-16 code units (64 KiB) is accepted, 32 769 is 400 PropertyValueTooLarge',
	`${DM}: String values up to 64 KiB; doc: error codes PropertyValueTooLarge 400`, async (ctx) => {
		const tc = await ctx.newTable();
		await accepts(tc.createEntity({ ...E, s: 'x'.repeat(32_768) }), '32 768 ASCII characters');
		eq((await tc.getEntity('p', 'r')).s.length, 32_768, 'length read back');
		await accepts(tc.createEntity({ partitionKey: 'p', rowKey: 'r1', s: 'é'.repeat(32_768) }), '32 768 two-byte characters');
		await accepts(tc.createEntity({ partitionKey: 'p', rowKey: 'r5', s: '😀'.repeat(16_384) }), '16 384 astral characters (32 768 UTF-16 code units)');
		await rejects(tc.createEntity({ partitionKey: 'p', rowKey: 'r2', s: 'x'.repeat(32_769) }), { status: 400, code: 'PropertyValueTooLarge' }, '32 769 ASCII characters');
		await rejects(tc.createEntity({ partitionKey: 'p', rowKey: 'r3', s: 'é'.repeat(32_769) }), { status: 400, code: 'PropertyValueTooLarge' }, '32 769 two-byte characters');
		await rejects(tc.createEntity({ partitionKey: 'p', rowKey: 'r4', s: '😀'.repeat(16_384) + 'x' }), { status: 400, code: 'PropertyValueTooLarge' }, '32 769 code units of astral characters');
	});

test('limits.binary-size', 'a Binary of 65 536 bytes is accepted, 65 537 is 400 PropertyValueTooLarge',
	`${DM}: Binary values up to 64 KiB; doc: error codes PropertyValueTooLarge 400`, async (ctx) => {
		const tc = await ctx.newTable();
		await accepts(tc.createEntity({ ...E, b: new Uint8Array(65_536).fill(7) }), '65 536 bytes');
		eq((await tc.getEntity('p', 'r')).b.length, 65_536, 'length read back');
		await rejects(tc.createEntity({ partitionKey: 'p', rowKey: 'r2', b: new Uint8Array(65_537) }), { status: 400, code: 'PropertyValueTooLarge' }, '65 537 bytes');
	});

test('limits.entity-too-large', 'an entity well over 1 MiB (17 Strings of 32 000 characters) is 400 EntityTooLarge',
	`${DM}: the total size of an entity's properties is at most 1 MiB; doc: error codes EntityTooLarge 400`, async (ctx) => {
		const tc = await ctx.newTable();
		const e = { ...E };
		for (let i = 0; i < 17; i++) e[`s${String(i).padStart(2, '0')}`] = 'y'.repeat(32_000);
		await rejects(tc.createEntity(e), { status: 400, code: 'EntityTooLarge' }, 'createEntity of about 1.09 MB');
	});

// contract §2: 4 + 2·len16(PK) + 2·len16(RK) + Σ(8 + 2·len16(name) + 2·len16(string) + 4)
function entityOfSize(total) {
	const e = { partitionKey: 'p', rowKey: 'r' };
	let size = 4 + 2 + 2;
	const names = Array.from({ length: 16 }, (_, i) => `s${String(i).padStart(2, '0')}`);
	for (let i = 0; i < 15; i++) {
		e[names[i]] = 'z'.repeat(32_768);
		size += 8 + 2 * 3 + 2 * 32_768 + 4;
	}
	const rest = total - size - (8 + 2 * 3 + 4);
	if (rest < 0 || rest % 2) throw new Error('bad size');
	e[names[15]] = 'z'.repeat(rest / 2);
	return e;
}

test('limits.entity-size-boundary', 'an entity of exactly 1 MiB by the size formula is accepted; 2 bytes more is EntityTooLarge',
	'contract §2: the service\'s size formula (4 + keys + Σ(8 + name + value), UTF-16); the docs give the 1 MiB limit, not the formula', async (ctx) => {
		const tc = await ctx.newTable();
		await accepts(tc.createEntity(entityOfSize(1_048_576)), 'an entity of 1 048 576 bytes');
		const over = { ...entityOfSize(1_048_578), rowKey: 'r' };
		await rejects(tc.updateEntity(over, 'Replace'), { status: 400, code: 'EntityTooLarge' }, 'replace with 1 048 578 bytes');
	}, { timeoutMs: 90_000 });

test('limits.property-name-invalid', 'property names that are not C# identifiers are 400 PropertyNameInvalid',
	`${DM}: property names follow the C# identifier rules (no dash since 2009-04-14); doc: error codes PropertyNameInvalid 400`, async (ctx) => {
		const tc = await ctx.newTable();
		const wrong = [];
		for (const [i, name] of ['a-b', '1abc', 'a b', 'a.b', 'a$b', 'é-x'].entries()) {
			try {
				await tc.createEntity({ ...E, rowKey: `r${i}`, [name]: 1 });
				wrong.push(`${JSON.stringify(name)} accepted`);
			} catch (err) {
				const code = err.details?.errorCode;
				if (err.statusCode !== 400 || code !== 'PropertyNameInvalid') wrong.push(`${JSON.stringify(name)} → ${err.statusCode} ${code ?? ''}`);
			}
		}
		if (wrong.length) fail(wrong.join('; '));
	});

test('limits.property-name-unicode', 'property names with Unicode letters and underscores are accepted',
	`${DM}: C# identifier rules allow Unicode letters and _`, async (ctx) => {
		const tc = await ctx.newTable();
		await tc.createEntity({ ...E, Größe: 1, 名前: 'n', _under: true, x_1: 2 });
		const back = await tc.getEntity('p', 'r');
		eq(back.Größe, 1, 'Größe');
		eq(back.名前, 'n', '名前');
		eq(back._under, true, '_under');
	});

test('limits.property-name-length', 'a property name of 255 characters is accepted, 256 is 400 PropertyNameTooLong',
	`${DM}: property names up to 255 characters; doc: error codes PropertyNameTooLong 400`, async (ctx) => {
		const tc = await ctx.newTable();
		await accepts(tc.createEntity({ ...E, ['n'.repeat(255)]: 1 }), '255-character name');
		await rejects(tc.createEntity({ partitionKey: 'p', rowKey: 'r2', ['n'.repeat(256)]: 1 }), { status: 400, code: 'PropertyNameTooLong' }, '256-character name');
	});

test('limits.property-names-case-sensitive', 'property names differing only in case are distinct properties',
	`${DM}: property names are case-sensitive`, async (ctx) => {
		const tc = await ctx.newTable();
		await tc.createEntity({ ...E, name: 'lower', Name: 'upper' });
		const back = await tc.getEntity('p', 'r');
		eq(back.name, 'lower', 'name');
		eq(back.Name, 'upper', 'Name');
	});

test('limits.request-5mib', 'an insert whose body is about 5 MiB is 413 RequestBodyTooLarge',
	'contract §12: a body over 4 MiB is 413 RequestBodyTooLarge (docs: Common REST API error codes RequestBodyTooLarge 413; the 4 MiB figure is documented for batches)', async (ctx) => {
		const tc = await ctx.newTable();
		const e = { ...E };
		for (let i = 0; i < 160; i++) e[`s${String(i).padStart(3, '0')}`] = 'w'.repeat(32_768);
		await rejects(tc.createEntity(e), { status: 413, code: 'RequestBodyTooLarge' }, 'createEntity of about 5.3 MB');
	});
