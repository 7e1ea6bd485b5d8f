// A page-level trap for the safety tests: installed with `addInitScript`, so it runs in every document
// before any of the page's own scripts. It counts what a rendered payload could do if the UI ever
// interpreted untrusted text as markup or code:
// - elements that can run script or load something (<script>, <img>, <svg>, <iframe>, <object>,
//   <embed>, <a href="javascript:…">), restyle or redirect the page (<style>, <base>,
//   <meta http-equiv>, a foreign <link>), and any `on…` handler attribute, added anywhere at any time
//   (a MutationObserver on the document);
// - calls of alert/confirm/prompt, eval, the Function constructor, string-bodied setTimeout/setInterval;
// - any touch of `window.__pwned` (the payloads' marker: `onerror="window.__pwned=1"`);
// - Content-Security-Policy violation reports (`securitypolicyviolation`).
// The app's own bundle (<script type="module" src="/assets/…">) is the only element it lets through.
import assert from 'node:assert/strict';
import { waitFor } from './helpers.mjs';

function trapInPage() {
  const hits = [];
  const violations = [];
  const record = (kind, detail) => hits.push({ kind, detail: String(detail).slice(0, 300) });
  const DANGEROUS = new Set(['SCRIPT', 'IMG', 'SVG', 'IFRAME', 'OBJECT', 'EMBED', 'FRAME', 'FRAMESET']);

  const isAppBundle = (el) => {
    if (el.tagName !== 'SCRIPT' || !el.src) return false;
    const u = new URL(el.src, location.href);
    return u.origin === location.origin && u.pathname.startsWith('/assets/') && u.pathname.endsWith('.js');
  };
  const check = (el) => {
    if (!(el instanceof Element)) return;
    const tag = el.tagName.toUpperCase();
    if (DANGEROUS.has(tag) && !isAppBundle(el)) record(`element <${tag.toLowerCase()}>`, el.outerHTML);
    // Markup that restyles or redirects the page: CSS injection (<style>), <base>, <meta http-equiv="refresh">,
    // a stylesheet from elsewhere. The app's own <link>s (its CSS, favicon, module preloads) are same-origin.
    if (tag === 'STYLE' || tag === 'BASE' || (tag === 'META' && el.hasAttribute('http-equiv'))) record(`element <${tag.toLowerCase()}>`, el.outerHTML);
    if (tag === 'LINK' && el.href && new URL(el.href, location.href).origin !== location.origin) record('foreign <link>', el.outerHTML);
    if (tag === 'A' && /^\s*javascript:/i.test(el.getAttribute('href') ?? '')) record('javascript: link', el.outerHTML);
    // Any inline event handler attribute (onerror, onload, …) on any element.
    for (const a of el.attributes) if (/^on/i.test(a.name)) record(`handler attribute ${a.name}`, el.outerHTML);
  };
  const scan = (node) => {
    if (!(node instanceof Element)) return;
    check(node);
    for (const el of node.querySelectorAll('*')) check(el);
  };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'childList') r.addedNodes.forEach(scan);
      else if (r.type === 'attributes') check(r.target);
    }
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['href', 'src', 'srcdoc', 'data', 'onerror', 'onload', 'onclick'] });

  for (const name of ['alert', 'confirm', 'prompt']) {
    window[name] = (...args) => {
      record(name, args.join(' '));
      return name === 'prompt' ? null : name === 'confirm' ? false : undefined;
    };
  }
  const realEval = window.eval;
  window.eval = function (src) {
    // Playwright's page.evaluate and locator.evaluateAll run through window.eval from its UtilityScript.
    if (!/\bat UtilityScript\./.test(new Error().stack)) record('eval', src);
    return realEval(src);
  };
  const RealFunction = window.Function;
  const FunctionTrap = new Proxy(RealFunction, {
    apply(target, self, args) {
      record('Function()', args.join(', '));
      return Reflect.apply(target, self, args);
    },
    construct(target, args) {
      record('new Function()', args.join(', '));
      return Reflect.construct(target, args);
    },
  });
  window.Function = FunctionTrap;
  Object.defineProperty(RealFunction.prototype, 'constructor', { value: FunctionTrap, configurable: true, writable: true });
  for (const name of ['setTimeout', 'setInterval']) {
    const real = window[name];
    window[name] = function (fn, ...rest) {
      if (typeof fn === 'string') record(`${name}(string)`, fn);
      return real.call(this, fn, ...rest);
    };
  }
  Object.defineProperty(window, '__pwned', {
    configurable: false,
    get() {
      return () => record('__pwned()', 'called');
    },
    set(v) {
      record('__pwned =', v);
    },
  });
  document.addEventListener(
    'securitypolicyviolation',
    (e) => violations.push({ directive: e.effectiveDirective || e.violatedDirective, blocked: String(e.blockedURI), sample: e.sample }),
    true,
  );

  Object.defineProperty(window, '__trap', {
    configurable: false,
    value: Object.freeze({
      report: () => ({ hits: hits.slice(), violations: violations.slice() }),
      reset: () => {
        hits.length = 0;
        violations.length = 0;
      },
    }),
  });
}

/** Installs the trap in every document the context opens from now on, before the page's scripts. */
export async function installTrap(context) {
  await context.addInitScript(trapInPage);
}

/** What the trap saw so far: `{hits: [{kind, detail}], violations: [{directive, blocked, sample}]}`. */
export function trapReport(page) {
  return page.evaluate(() => window.__trap.report());
}

/** Asserts the trap saw nothing: no dangerous element, no dialog or eval, no CSP violation. */
export async function assertNothingRan(page, where) {
  const report = await trapReport(page);
  assert.deepEqual(report.hits, [], `${where}: the trap saw something that could run`);
  assert.deepEqual(report.violations, [], `${where}: CSP violation reports`);
}

/**
 * Proves the trap works in this very page, then resets it: an <img onerror> put in by hand (what an
 * `{@html}` in the UI would do with a payload) must be counted, its blocked inline handler must be
 * reported as a CSP violation, and alert/eval/Function/__pwned must be counted (the eval, run by a page
 * timer, is refused by the CSP and reported too). `problems` (from newPage) gets the browser's errors
 * for both refusals: they are removed here.
 */
export async function selfCheckTrap(page, problems) {
  await page.evaluate(() => {
    const div = document.createElement('div');
    div.id = 'trap-self-check';
    div.innerHTML = '<img src="/trap-self-check.png" onerror="window.__pwned = 1"><a href="javascript:void 0">x</a><svg></svg>';
    document.body.append(div);
    window.alert('self-check');
    // Later, so that Playwright's evaluation is not on the stack (its own eval calls are let through).
    setTimeout(() => window.eval('1'));
    new Function('return 1');
    window.__pwned = 'self-check';
  });
  // The CSP (script-src 'self') blocks the inline onerror once the image fails to load, and the eval
  // in the timer (a page script: Playwright's own evaluation is exempt); both reports are async.
  const report = await waitFor(async () => {
    const r = await trapReport(page);
    const blocked = r.violations.map((v) => v.blocked);
    return blocked.includes('inline') && blocked.includes('eval') ? r : null;
  }, 'the CSP violations of the self-check <img onerror> and eval');
  const kinds = report.hits.map((h) => h.kind);
  for (const kind of ['element <img>', 'element <svg>', 'javascript: link', 'handler attribute onerror', 'alert', 'eval', 'new Function()', '__pwned =']) {
    assert.ok(kinds.includes(kind), `the trap's self-check counted ${kind} (saw ${JSON.stringify(kinds)})`);
  }
  assert.ok(report.violations.every((v) => /^script-src/.test(v.directive)), `script-src violations: ${JSON.stringify(report.violations)}`);
  // The browser logs the blocked handler (console error) and the refused eval (uncaught EvalError):
  // wait for both, then drop them.
  const selfCheckNoise = (p) => /Content Security Policy/.test(p);
  await waitFor(() => problems.filter(selfCheckNoise).length >= 2, 'the console errors of the blocked self-check handler and eval');
  await page.evaluate(() => {
    document.getElementById('trap-self-check').remove();
    window.__trap.reset();
  });
  for (let i = problems.length - 1; i >= 0; i--) if (selfCheckNoise(problems[i])) problems.splice(i, 1);
  assert.deepEqual(await trapReport(page), { hits: [], violations: [] });
}
