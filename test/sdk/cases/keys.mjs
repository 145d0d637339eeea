// cases/keys.mjs - PartitionKey and RowKey values: special characters through every operation,
// empty keys, forbidden characters, the 1 KiB limit.
import { odata } from '@azure/data-tables';
import { accepts, deepEq, eq, fail, rejects, test } from '../lib/harness.mjs';

const DM = 'doc: Understanding the Table service data model (PartitionKey / RowKey)';

const SPECIAL = [
	"O'Brien", "two''quotes", "'", 'with space', '  ', 'percent%20not-decoded', '100%', '%27', 'plus+sign', 'a&b=c;d',
	'colon:at@dollar$', 'paren(s)', 'comma,semi;', 'tilde~caret^pipe|', 'braces{}[]', 'angle<>', 'quote"double', 'back`tick',
	'ümlaut', '日本語', 'emoji😀', 'excl!star*', 'eq=', 'dot.', '..', 'trailing.', 'x'.repeat(200),
];

test('keys.special-characters', 'keys with quotes, spaces, %, +, &, unicode and punctuation work in every operation',
	`${DM}: every character is allowed except / \\ # ? and control characters`, async (ctx) => {
		const tc = await ctx.newTable();
		const wrong = [];
		for (const [i, k] of SPECIAL.entries()) {
			const pk = `pk ${k}`;
			const step = async (label, fn) => {
				try {
					await fn();
				} catch (e) {
					wrong.push(`${JSON.stringify(k)} ${label}: ${e.statusCode ?? ''} ${e.details?.errorCode ?? e.message.split('\n')[0].slice(0, 80)}`);
					throw e;
				}
			};
			try {
				await step('create', () => tc.createEntity({ partitionKey: pk, rowKey: k, i }));
				await step('get', async () => {
					const e = await tc.getEntity(pk, k);
					if (e.partitionKey !== pk || e.rowKey !== k || e.i !== i) throw new Error(`read back ${JSON.stringify([e.partitionKey, e.rowKey, e.i])}`);
				});
				await step('merge', () => tc.updateEntity({ partitionKey: pk, rowKey: k, j: 1 }, 'Merge'));
				await step('replace', () => tc.updateEntity({ partitionKey: pk, rowKey: k, i, j: 2 }, 'Replace'));
				await step('upsert', () => tc.upsertEntity({ partitionKey: pk, rowKey: k, i, j: 3 }, 'Merge'));
				await step('filter', async () => {
					const got = await ctx.all(tc, { queryOptions: { filter: odata`PartitionKey eq ${pk} and RowKey eq ${k}` } });
					if (got.length !== 1 || got[0].j !== 3) throw new Error(`filter returned ${got.length} entities`);
				});
				await step('delete', () => tc.deleteEntity(pk, k));
			} catch {
				/* recorded */
			}
		}
		if (wrong.length) fail(`${wrong.length} failures: ${wrong.slice(0, 6).join('; ')}`);
	});

test('keys.empty-rowkey', 'an empty RowKey is allowed: insert, read, update, delete',
	'contract §2: empty string allowed (the data-model page gives only the size limit)', async (ctx) => {
		const tc = await ctx.newTable();
		await tc.createEntity({ partitionKey: 'p', rowKey: '', v: 1 });
		eq((await tc.getEntity('p', '')).v, 1, 'read');
		await tc.updateEntity({ partitionKey: 'p', rowKey: '', v: 2 }, 'Merge');
		eq((await tc.getEntity('p', '')).v, 2, 'after merge');
		const listed = await ctx.all(tc);
		deepEq(listed.map((e) => e.rowKey), [''], 'listed RowKeys');
		await tc.deleteEntity('p', '');
		await rejects(tc.getEntity('p', ''), { status: 404 }, 'after delete');
	});

test('keys.empty-partitionkey', 'an empty PartitionKey is allowed',
	'contract §2: empty string allowed', async (ctx) => {
		const tc = await ctx.newTable();
		await tc.createEntity({ partitionKey: '', rowKey: 'r', v: 1 });
		eq((await tc.getEntity('', 'r')).v, 1, 'read');
		await tc.deleteEntity('', 'r');
	});

test('keys.forbidden-characters', 'keys holding / \\ # ? or a control character are refused with 400 InvalidInput',
	`${DM}: / \\ # ? and U+0000-U+001F, U+007F-U+009F are not allowed in keys; contract §2 InvalidInput`, async (ctx) => {
		const tc = await ctx.newTable();
		const bad = ['a/b', 'a\\b', 'a#b', 'a?b', 'a\u0001b', 'a\tb', 'a\u007fb', 'a\u009fb'];
		const wrong = [];
		for (const k of bad) {
			for (const which of ['rowKey', 'partitionKey']) {
				const e = { partitionKey: 'p', rowKey: 'r', [which]: k };
				try {
					await tc.createEntity(e);
					wrong.push(`${which} ${JSON.stringify(k)} accepted`);
				} catch (err) {
					const code = err.details?.errorCode;
					if (err.statusCode !== 400 || code !== 'InvalidInput') wrong.push(`${which} ${JSON.stringify(k)} → ${err.statusCode} ${code ?? ''}`);
				}
			}
		}
		if (wrong.length) fail(`${wrong.length} of ${bad.length * 2} wrong: ${wrong.join('; ')}`);
	});

test('keys.max-length', 'keys of 512 UTF-16 code units (1 KiB) are accepted, 513 refused',
	`${DM}: PartitionKey and RowKey are strings up to 1 KiB; contract §2 (KeyValueTooLarge or OutOfRangeInput)`, async (ctx) => {
		const tc = await ctx.newTable();
		const k512 = 'k'.repeat(512);
		await accepts(tc.createEntity({ partitionKey: 'p', rowKey: k512 }), '512-character RowKey');
		await accepts(tc.createEntity({ partitionKey: k512, rowKey: 'r' }), '512-character PartitionKey');
		eq((await tc.getEntity('p', k512)).rowKey, k512, 'read back the 512-character RowKey');
		const want = { status: 400, code: ['KeyValueTooLarge', 'OutOfRangeInput'] };
		await rejects(tc.createEntity({ partitionKey: 'p', rowKey: 'k'.repeat(513) }), want, '513-character RowKey');
		await rejects(tc.createEntity({ partitionKey: 'k'.repeat(513), rowKey: 'r' }), want, '513-character PartitionKey');
		// 256 astral characters are 512 UTF-16 code units (and 1 KiB of UTF-16)
		await accepts(tc.createEntity({ partitionKey: 'p', rowKey: '😀'.repeat(256) }), 'RowKey of 256 astral characters (512 UTF-16 code units)');
		await rejects(tc.createEntity({ partitionKey: 'p', rowKey: '😀'.repeat(256) + 'x' }), want, '513 UTF-16 code units of astral characters');
	});

test('keys.order-ordinal', 'keys sort ordinally: digits before capitals before lower case, "brown" not between B and C',
	'doc: Querying tables and entities: results sorted by PartitionKey then RowKey; contract §3 (ordinal comparison)', async (ctx) => {
		const tc = await ctx.newTable();
		const rks = ['brown', 'Department', '00002', '00001', 'B', 'Bz', 'C', 'a', '_', 'Z', '~'];
		await ctx.load(tc, rks.map((r) => ({ partitionKey: 'p', rowKey: r })));
		const listed = (await ctx.all(tc)).map((e) => e.rowKey);
		const ordinal = [...rks].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
		deepEq(listed, ordinal, 'listing order');
		const range = (await ctx.all(tc, { queryOptions: { filter: "PartitionKey eq 'p' and RowKey ge 'B' and RowKey lt 'C'" } })).map((e) => e.rowKey);
		deepEq(range, ['B', 'Bz'], "RowKey ge 'B' and lt 'C'");
	});
