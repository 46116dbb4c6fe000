// SPDX-License-Identifier: Apache-2.0
// Browser test of the HTML flame graph: opens the unit tests' fixture page in Debian's
// headless Chromium and checks drawing, hover, zoom, search, escaping and isolation.
// Usage: node flamegraph.test.mjs FIXTURE.html [SCREENSHOT_DIR]
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = [
	'--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
	'--disable-background-networking', '--disable-component-update', '--disable-sync',
];
// Must match FIXTURE_TITLE and HOSTILE in tests/unit/test_flamegraph.c, as the page should
// show them: markup as text, the invalid UTF-8 bytes (ff c0 af) as three U+FFFD.
const TITLE = 'ebprof fixture <b>demo</b> & "quotes"';
const HOSTILE = '</script><script>window.__pwned=1</script>' +
	'<img src=x onerror="window.__pwned=2"><b id="pwned">x</b> "q\' \\ \x01\x1f\x7f ' +
	'\ufffd\ufffd\ufffd \u2028 \u00e9 end';

const results = [];

async function check(name, fn) {
	try {
		await fn();
		results.push(true);
		console.log(`PASS ${name}`);
	} catch (e) {
		results.push(false);
		console.log(`FAIL ${name}: ${String(e && e.message ? e.message : e).split('\n')[0]}`);
	}
}

function assert(cond, msg) {
	if (!cond)
		throw new Error(msg);
}

function near(actual, expected, tolerance, what) {
	assert(Math.abs(actual - expected) <= tolerance,
		`${what} is ${actual.toFixed(3)}, expected ${expected} \u00b1 ${tolerance}`);
}

// The drawn frame whose full text is name: its box, classes and colour, or null.
function frame(page, name) {
	return page.evaluate((n) => {
		const el = [...document.querySelectorAll('#chart .f')].find((e) => e.textContent === n);
		if (!el)
			return null;
		const r = el.getBoundingClientRect();
		return {
			x: r.x, y: r.y, w: r.width, h: r.height, cls: el.className,
			bg: getComputedStyle(el).backgroundColor,
		};
	}, name);
}

async function mustFrame(page, name) {
	const f = await frame(page, name);
	assert(f, `no frame ${JSON.stringify(name)} drawn`);
	return f;
}

function rgb(css) {
	const m = css.match(/rgba?\((\d+), (\d+), (\d+)/);
	assert(m, `unparsed colour ${css}`);
	return { r: +m[1], g: +m[2], b: +m[3] };
}

// The hue in degrees of an rgb colour.
function hue({ r, g, b }) {
	const max = Math.max(r, g, b), min = Math.min(r, g, b), d = max - min;
	if (!d)
		return 0;
	const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
	return (h * 60 + 360) % 360;
}

async function testDrawing(page) {
	await check('title and total shown', async () => {
		const title = await page.textContent('#title');
		const summary = await page.textContent('#summary');
		assert(title === TITLE, `title is ${JSON.stringify(title)}`);
		assert(await page.title() === TITLE, `document title is ${await page.title()}`);
		assert(summary.startsWith('100 samples'), `summary is ${JSON.stringify(summary)}`);
	});
	await check('frames drawn in proportion', async () => {
		const all = await mustFrame(page, 'all'), leaf = await mustFrame(page, 'leaf');
		const a = await mustFrame(page, 'a'), d = await mustFrame(page, 'd');
		near(leaf.w / all.w, 0.6, 0.01, 'leaf/all width');
		near(a.w / all.w, 0.9, 0.01, 'a/all width');
		near(d.w / all.w, 0.1, 0.01, 'd/all width');
		assert(leaf.y > a.y && a.y > all.y, 'callees are not drawn below their callers');
	});
	await check('kernel frames coloured apart', async () => {
		const k = await mustFrame(page, 'ksys_write'), leaf = await mustFrame(page, 'leaf');
		const kc = rgb(k.bg), lc = rgb(leaf.bg);
		assert(/\bkernel\b/.test(k.cls) && /\bnative\b/.test(leaf.cls), 'kind classes');
		assert(kc.b > kc.r, `kernel frame is not blue: ${k.bg}`);
		assert(lc.r > lc.b, `native frame is not warm: ${leaf.bg}`);
	});
}

async function testHover(page) {
	await check('hover shows name, samples and percentage', async () => {
		const leaf = await mustFrame(page, 'leaf');
		await page.mouse.move(leaf.x + leaf.w / 2, leaf.y + leaf.h / 2);
		const status = await page.textContent('#status');
		const tip = await page.textContent('#tip');
		assert(await page.isVisible('#tip'), 'tooltip hidden');
		for (const s of ['leaf', '60 samples', '60.00%'])
			assert(status.includes(s) && tip.includes(s), `"${s}" missing in ${status}`);
	});
}

// Every kind of node on the page (the data says which), hovered: its tooltip gives the
// kind's description, never "undefined", and the legend names it.
async function testKinds(page) {
	const kinds = await page.evaluate(() => {
		const d = JSON.parse(document.getElementById('fg-data').textContent);
		const seen = new Set();
		for (let i = 1; i < d.nodes.length; i += 4)
			seen.add(d.nodes[i]);
		return [...seen].sort().map((k) => d.kinds[k]);
	});
	await check('the page has every kind of frame', async () => {
		const names = kinds.map((k) => k.name).join(' ');
		for (const k of ['root', 'process', 'kernel', 'native', 'unknown', 'python'])
			assert(names.split(' ').includes(k), `no ${k} node in the fixture (${names})`);
	});
	for (const k of kinds) {
		await check(`hover a ${k.name} frame: its description`, async () => {
			assert(k.name && k.about, `kind without name or description: ${JSON.stringify(k)}`);
			const box = await page.evaluate((cls) => {
				const el = document.querySelector(`#chart .f.${cls}`);
				if (!el)
					return null;
				const r = el.getBoundingClientRect();
				return { x: r.x + Math.min(r.width / 2, 10), y: r.y + r.height / 2 };
			}, k.name);
			assert(box, `no ${k.name} frame drawn`);
			await page.mouse.move(box.x, box.y);
			const lines = await page.$$eval('#tip div', (ds) => ds.map((d) => d.textContent));
			assert(lines.length === 2, `tooltip has ${lines.length} lines`);
			assert(lines[1].startsWith(k.about + ' \u00b7 self'), `tooltip says ${lines[1]}`);
			assert(!/undefined|NaN/.test(lines.join(' ')), `tooltip says ${lines.join(' / ')}`);
		});
	}
	await check('the legend names the kinds on the page', async () => {
		const legend = await page.$$eval('#legend span', (ss) => ss.map((s) => s.textContent));
		const want = kinds.filter((k) => k.name !== 'root').map((k) => k.name);
		for (const n of [...want, 'match'])
			assert(legend.includes(n), `legend ${JSON.stringify(legend)} lacks ${n}`);
	});
	await check('python frames coloured apart from native ones', async () => {
		const py = hue(rgb((await mustFrame(page, 'run (app.py:12)')).bg));
		for (const n of ['main', 'a', 'b', 'c', 'd', 'leaf']) {
			const h = hue(rgb((await mustFrame(page, n)).bg));
			assert(py - h >= 8, `python hue ${py.toFixed(0)} too near native ${n}'s ${h.toFixed(0)}`);
		}
	});
	await page.mouse.move(0, 0);
}

async function testZoom(page) {
	await check('click zooms into a frame', async () => {
		const a = await mustFrame(page, 'a');
		await page.mouse.click(a.x + a.w / 2, a.y + a.h / 2);
		const all = await mustFrame(page, 'all'), za = await mustFrame(page, 'a');
		const main = await mustFrame(page, 'main'), b = await mustFrame(page, 'b');
		near(za.w / all.w, 1, 0.005, 'zoomed a/all width');
		near(main.w / all.w, 1, 0.005, 'ancestor main/all width');
		near(b.w / all.w, 60 / 90, 0.01, 'zoomed b/all width');
		assert(await frame(page, 'd') === null, 'd is still drawn');
		assert(!(await page.isDisabled('#reset')), 'reset is disabled');
	});
	await check('reset restores the whole profile', async () => {
		await page.click('#reset');
		const all = await mustFrame(page, 'all'), a = await mustFrame(page, 'a');
		await mustFrame(page, 'd');
		near(a.w / all.w, 0.9, 0.01, 'a/all width');
		assert(await page.isDisabled('#reset'), 'reset still enabled');
	});
	await check('escape resets zoom', async () => {
		const c = await mustFrame(page, 'c');
		await page.mouse.click(c.x + c.w / 2, c.y + c.h / 2);
		assert(await frame(page, 'leaf') === null, 'zoom into c kept leaf');
		await page.keyboard.press('Escape');
		await mustFrame(page, 'leaf');
	});
}

async function testSearch(page) {
	await check('search highlights matches and reports their share', async () => {
		await page.fill('#search', 'leaf');
		const match = await page.textContent('#match');
		assert(match.includes('60.00%'), `match text is ${JSON.stringify(match)}`);
		assert(/\bhit\b/.test((await mustFrame(page, 'leaf')).cls), 'leaf not highlighted');
		assert(!/\bhit\b/.test((await mustFrame(page, 'c')).cls), 'c highlighted');
	});
	await check('regex search', async () => {
		await page.check('#regex');
		await page.fill('#search', '^(b|c)$');
		const match = await page.textContent('#match');
		assert(match.includes('90.00%'), `match text is ${JSON.stringify(match)}`);
		await page.fill('#search', '(');
		assert((await page.textContent('#match')).includes('invalid'), 'bad regex accepted');
		await page.fill('#search', '');
		await page.uncheck('#regex');
		assert(await page.textContent('#match') === '', 'match text not cleared');
	});
}

async function testEscaping(page) {
	await check('hostile name shown as text, nothing injected', async () => {
		await mustFrame(page, HOSTILE);
		const dom = await page.evaluate(() => ({
			pwned: window.__pwned, b: !!document.getElementById('pwned'),
			images: document.images.length, scripts: document.scripts.length,
		}));
		assert(dom.pwned === undefined, 'injected script ran');
		assert(!dom.b && dom.images === 0, 'injected element exists');
		assert(dom.scripts === 2, `${dom.scripts} script elements`);
	});
}

async function testFlip(page) {
	await check('root can be drawn at the bottom', async () => {
		await page.click('#flip');
		const all = await mustFrame(page, 'all'), leaf = await mustFrame(page, 'leaf');
		assert(all.y > leaf.y, 'root not below leaf');
		await page.click('#flip');
	});
}

// A graph taller than the window: "Root at bottom" brings the root into view (above the
// status bar), and flipping back brings the top back.
async function testFlipScrolls(browser, url) {
	const page = await browser.newPage({ viewport: { width: 1280, height: 500 } });
	try {
		await page.goto(url);
		await check('root at bottom scrolls to the root', async () => {
			await page.click('#flip');
			const all = await mustFrame(page, 'all');
			const bottom = await page.evaluate(() =>
				innerHeight - document.getElementById('status').offsetHeight);
			assert(all.y >= 0 && all.y + all.h <= bottom + 1,
				`root drawn at y ${all.y.toFixed(0)}, the window shows 0 to ${bottom}`);
			await page.click('#flip');
			assert(await page.evaluate(() => scrollY) === 0, 'not back at the top');
		});
	} finally {
		await page.close();
	}
}

// Every event's page speaks its own unit: bytes (human-readable) and objects for
// allocations, time for off-CPU, events for probes; CPU time only for CPU samples.
async function testUnits(browser, base) {
	const pages = [
		['alloc', '1.14 GiB', 'objects', /iB \(10,000 objects\)/, 'bytes allocated'],
		['off-cpu', '3.20 s', '12 samples', /3\.20 s \(12 samples\)/, 'off-CPU time'],
		['probe', '2,001 events', null, /2,001 events/, 'probe hits'],
	];
	for (const [name, total, count, leafText, what] of pages) {
		const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
		try {
			await page.goto(base.replace(/\.html$/, `.${name}.html`));
			await check(`${what} in their unit`, async () => {
				const summary = await page.textContent('#summary');
				assert(summary.startsWith(total), `summary is ${JSON.stringify(summary)}`);
				assert(!/CPU|Hz/.test(summary), `CPU time on a ${name} page: ${summary}`);
				if (count)
					assert(summary.includes(count), `no ${count} in ${summary}`);
				const leaf = await mustFrame(page, 'leaf');
				await page.mouse.move(leaf.x + leaf.w / 2, leaf.y + leaf.h / 2);
				const tip = await page.textContent('#tip');
				assert(leafText.test(tip) && !/CPU|undefined|NaN/.test(tip),
					`tooltip ${JSON.stringify(tip)}`);
			});
		} finally {
			await page.close();
		}
	}
}

async function shoot(page, dir, name) {
	if (dir)
		await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

async function run(fixture, shots) {
	const url = pathToFileURL(fixture).href, errors = [], requests = [];
	const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
		args: ARGS, timeout: 60000 });
	try {
		const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
		page.setDefaultTimeout(10000);
		page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
		page.on('pageerror', (e) => errors.push(e.message));
		page.on('request', (r) => r.url() !== url && requests.push(r.url()));
		await page.goto(url);
		await shoot(page, shots, 'initial');
		await testDrawing(page);
		await testHover(page);
		await shoot(page, shots, 'hover');
		await testKinds(page);
		await testZoom(page);
		await testSearch(page);
		await testEscaping(page);
		await testFlip(page);
		await testFlipScrolls(browser, url.replace(/\.html$/, '.deep.html'));
		await testUnits(browser, url);
		await check('no console errors', () => assert(!errors.length, errors.join('; ')));
		await check('no network requests', () => assert(!requests.length, requests.join(' ')));
	} finally {
		await browser.close();
	}
}

const [fixture, shots] = process.argv.slice(2);
if (!fixture) {
	console.error('usage: node flamegraph.test.mjs FIXTURE.html [SCREENSHOT_DIR]');
	process.exit(2);
}
try {
	await run(fixture, shots);
} catch (e) {
	console.log(`FAIL browser: ${String(e && e.message ? e.message : e).split('\n')[0]}`);
	results.push(false);
}
const failed = results.filter((ok) => !ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed || !results.length ? 1 : 0);
