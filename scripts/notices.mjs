// The third-party notices of the native addon: every crate linked into it, and the C and C++
// libraries some of them bundle (zstd, zlib-ng, simdutf), each with its license expression and
// the license texts it ships. BSD-3-Clause (zstd) and the MIT texts ask for their notices to go
// with every copy of the binary, so the platform packages, which carry it, carry
// THIRD-PARTY-NOTICES.md and fastlines' own LICENSE.
//
//   node scripts/notices.mjs            writes THIRD-PARTY-NOTICES.md from Cargo.lock's crates
//   node scripts/notices.mjs --check    fails if THIRD-PARTY-NOTICES.md is not what it would write
//   node scripts/notices.mjs --copy     copies both files into every npm/<platform>/ package
//                                       (the release workflow, before publishing them)
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))
export const NOTICES = 'THIRD-PARTY-NOTICES.md'
/** The files every platform package carries besides its binary. */
export const PLATFORM_FILES = ['LICENSE', NOTICES]

/** A crate's own license files, at its root: LICENSE-MIT, COPYING, NOTICE, UNLICENSE, ... */
const LICENSE_FILE = /^(licen[cs]e|copying|notice|unlicense)/i

/**
 * The license files of the C and C++ code a crate bundles and compiles into the addon, by crate:
 * paths inside the crate, or the text itself where the crate does not ship it.
 */
const BUNDLED = {
  'zstd-sys': [{ library: 'Zstandard (zstd), BSD-3-Clause (of its BSD-3-Clause OR GPL-2.0)', file: 'zstd/LICENSE' }],
  'libz-ng-sys': [{ library: 'zlib-ng, Zlib', file: 'src/zlib-ng/LICENSE.md' }],
  simdutf: [
    {
      library: "simdutf (the C++ library, in the crate's cpp/), Apache-2.0 OR MIT",
      text: `MIT License

Copyright (c) 2021 The simdutf authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software
and associated documentation files (the "Software"), to deal in the Software without
restriction, including without limitation the rights to use, copy, modify, merge, publish,
distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
`,
    },
  ],
}

/**
 * The crates linked into the addon on any target: the workspace's normal dependencies, followed
 * through normal dependencies, not into build scripts' or procedural macros' (which run at build
 * time and leave nothing of theirs in the binary).
 */
export function linkedCrates() {
  const metadata = JSON.parse(
    execFileSync('cargo', ['metadata', '--format-version', '1', '--locked'], {
      cwd: repo,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    }),
  )
  const packages = new Map(metadata.packages.map((pkg) => [pkg.id, pkg]))
  const nodes = new Map(metadata.resolve.nodes.map((node) => [node.id, node]))
  const members = new Set(metadata.workspace_members)
  const isProcMacro = (id) => packages.get(id).targets.some((target) => target.kind.includes('proc-macro'))
  const linked = new Set()
  const queue = [...members]
  while (queue.length > 0) {
    for (const dep of nodes.get(queue.pop()).deps) {
      const normal = dep.dep_kinds.some((kind) => kind.kind === null)
      if (!normal || linked.has(dep.pkg) || members.has(dep.pkg) || isProcMacro(dep.pkg)) continue
      linked.add(dep.pkg)
      queue.push(dep.pkg)
    }
  }
  return [...linked]
    .map((id) => packages.get(id))
    .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version))
}

/** Whether `license`, an SPDX expression, offers MIT as one choice (`MIT OR Apache-2.0`, `Apache-2.0/MIT`). */
const offersMit = (license) => /^\(?[^()]*\)?$/.test(license ?? '') && /(^|\s|\/)MIT(\s|\/|$)/.test(license ?? '')

/**
 * The license texts `pkg` ships (its own, then its bundled libraries'), each with a title: of a
 * crate that offers MIT among others, its MIT text only, the one this binary takes it under.
 */
function licenseTexts(pkg) {
  const dir = path.dirname(pkg.manifest_path)
  let files = fs
    .readdirSync(dir)
    .filter((name) => LICENSE_FILE.test(name) && fs.statSync(path.join(dir, name)).isFile())
  const mit = files.filter((name) => /mit/i.test(name))
  if (offersMit(pkg.license) && mit.length > 0) files = mit
  const own = files.sort().map((name) => ({ title: name, text: fs.readFileSync(path.join(dir, name), 'utf8') }))
  const bundled = (BUNDLED[pkg.name] ?? []).map(({ library, file, text }) => ({
    title: `${library}${file ? `: ${file}` : ''}`,
    text: text ?? fs.readFileSync(path.join(dir, file), 'utf8'),
  }))
  return [...own, ...bundled]
}

/** THIRD-PARTY-NOTICES.md as the crates in Cargo.lock make it. */
export function renderNotices() {
  const crates = linkedCrates()
  const out = [
    '# Third-party notices',
    '',
    'The fastlines native addon (the `.node` file of each `fastlines-<platform>` package) is built from the',
    'crates below, on some platforms only some of them, and links the C and C++ libraries some of',
    'them bundle. Each is used under the license it names; where it offers a choice, under any of',
    'them. Their license texts follow, as each crate ships them. fastlines itself is under the',
    'MIT license in LICENSE.',
    '',
    'Written by `node scripts/notices.mjs` from Cargo.lock; `npm test` checks it is current.',
    '',
    '| crate | version | license |',
    '| --- | --- | --- |',
    ...crates.map((pkg) => `| ${pkg.name} | ${pkg.version} | ${pkg.license ?? 'see its files'} |`),
    '',
  ]
  for (const pkg of crates) {
    out.push(`## ${pkg.name} ${pkg.version}`, '', `License: ${pkg.license ?? 'see the files below'}.`, '')
    const texts = licenseTexts(pkg)
    if (texts.length === 0) out.push('The crate ships no license file; its license expression above applies.', '')
    for (const { title, text } of texts) {
      out.push(`### ${title}`, '', '```text', text.replace(/\r\n/g, '\n').trimEnd(), '```', '')
    }
  }
  return out.join('\n')
}

/** Copies LICENSE and THIRD-PARTY-NOTICES.md into the platform package folder `dir`. */
export function copyPlatformFiles(dir) {
  for (const name of PLATFORM_FILES) fs.copyFileSync(path.join(repo, name), path.join(dir, name))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2]
  const file = path.join(repo, NOTICES)
  if (mode === '--check') {
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''
    if (current !== renderNotices()) {
      console.error(`${NOTICES} is not current: run node scripts/notices.mjs and commit it`)
      process.exit(1)
    }
  } else if (mode === '--copy') {
    for (const name of fs.readdirSync(path.join(repo, 'npm'))) copyPlatformFiles(path.join(repo, 'npm', name))
  } else if (mode === undefined) {
    fs.writeFileSync(file, renderNotices())
  } else {
    console.error(`unknown option ${mode}: give --check, --copy or nothing`)
    process.exit(1)
  }
}
