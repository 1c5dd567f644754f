// DOM helpers of <mcp-mention>: element creation and the default styles,
// adopted at zero specificity (:where()) so any page rule wins and no inline
// <style> is needed under a strict CSP.

const DEFAULT_CSS = `
:where(mcp-mention) { display: contents; }
:where(.mcp-mention-popup) { position: fixed; z-index: 1000; box-sizing: border-box; background: #fff; color: #1f2328;
  display: flex; flex-direction: column;
  border: 1px solid #d0d7de; border-radius: 10px; box-shadow: 0 12px 32px rgba(31,35,40,.16); overflow: hidden;
  font: 14px/1.35 system-ui, -apple-system, "Segoe UI", sans-serif; }
:where(.mcp-mention-list) { flex: 0 1 auto; min-height: 0; overflow-y: auto; overscroll-behavior: contain; overflow-anchor: none; margin: 0; padding: 0; position: relative; }
:where(.mcp-mention-spacer) { pointer-events: none; }
:where(.mcp-mention-group-header) { box-sizing: border-box; height: var(--mcp-mention-group-height, 30px); display: flex;
  align-items: center; padding: 0 12px; font-size: 12px; font-weight: 600; letter-spacing: .04em; text-transform: uppercase; color: #59636e; }
:where(.mcp-mention-option) { box-sizing: border-box; height: var(--mcp-mention-row-height, 56px); display: grid;
  grid-template-columns: 28px 1fr auto; grid-template-rows: auto auto; column-gap: 10px; align-content: center; padding: 0 12px; cursor: pointer; }
:where(.mcp-mention-option[aria-selected="true"]) { background: #ddf4ff; box-shadow: inset 3px 0 0 #0969da; }
:where(.mcp-mention-option:hover) { background: #f6f8fa; }
:where(.mcp-mention-icon) { grid-row: 1 / span 2; align-self: center; width: 24px; height: 24px; border-radius: 6px; display: grid;
  place-items: center; font-size: 10px; font-weight: 700; background: #eef1f4; color: #59636e; overflow: hidden; }
:where(.mcp-mention-icon img) { width: 24px; height: 24px; object-fit: contain; }
:where(.mcp-mention-title) { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; }
:where(.mcp-mention-sub) { grid-column: 2; font-size: 12px; color: #59636e; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; }
:where(.mcp-mention-uri) { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
:where(.mcp-mention-meta) { grid-column: 3; grid-row: 1 / span 2; align-self: center; display: flex; gap: 6px; align-items: center; font-size: 11px; color: #59636e; }
:where(.mcp-mention-badge) { border: 1px solid #d0d7de; border-radius: 999px; padding: 1px 7px; white-space: nowrap; }
:where(.mcp-mention-badge.is-template) { border-color: #8250df; color: #6639ba; }
:where(.mcp-mention-badge.is-unsupported, .mcp-mention-badge.is-withheld) { border-color: #bf8700; color: #7d4e00; background: #fff8c5; }
:where(.mcp-mention-badge.is-app) { border-color: #8250df; color: #6639ba; background: #fbefff; }
:where(.mcp-mention-badge.is-prompt) { border-color: #1a7f37; color: #116329; }
:where(.mcp-mention-popup > .mcp-mention-error) { padding: 8px 12px; border-bottom: 1px solid #eaeef2; }
:where(.mcp-mention-args-desc) { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 12px; color: #59636e; word-break: normal; margin-top: 4px; }
:where(.mcp-mention-option.is-unsupported .mcp-mention-title) { color: #59636e; }
:where(.mcp-mention-popup mark) { background: #fff1a8; color: inherit; border-radius: 2px; }
:where(.mcp-mention-footer) { border-top: 1px solid #eaeef2; padding: 6px 12px; font-size: 12px; color: #59636e; display: flex; justify-content: space-between; gap: 8px; }
:where(.mcp-mention-empty) { padding: 14px 12px; color: #59636e; }
:where(.mcp-mention-args) { padding: 12px; display: grid; gap: 8px; }
:where(.mcp-mention-args-template) { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; word-break: break-all; }
:where(.mcp-mention-args-template .is-current) { background: #ddf4ff; color: #0550ae; border-radius: 3px; font-weight: 700; }
:where(.mcp-mention-args label) { font-weight: 600; }
:where(.mcp-mention-args input) { font: inherit; padding: 6px 8px; border: 1px solid #8c959f; border-radius: 6px; }
:where(.mcp-mention-args input:focus) { outline: 2px solid #0969da; outline-offset: 0; border-color: #0969da; }
:where(.mcp-mention-args .mcp-mention-list) { max-height: 200px; border: 1px solid #eaeef2; border-radius: 6px; }
:where(.mcp-mention-args .mcp-mention-option) { height: auto; min-height: 32px; grid-template-columns: 1fr; padding: 4px 10px; }
:where(.mcp-mention-error) { color: #d1242f; font-weight: 600; }
:where(.mcp-mention-error:empty) { display: none; }
:where(.mcp-mention-hint) { font-size: 12px; color: #59636e; }
:where(.mcp-mention-sr) { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
:where(mcp-mention [hidden]) { display: none !important; }
:where(.mcp-mention-token) { background: #ddf4ff; color: #0550ae; border-radius: 4px; padding: 0 3px; white-space: nowrap; }
`

let sheetAdopted = false

/** Adopts the default styles into doc once (a constructed stylesheet, first in line). */
export function adoptDefaultStyles(doc) {
  if (sheetAdopted || !doc || typeof CSSStyleSheet === "undefined") return
  sheetAdopted = true
  try {
    const sheet = new CSSStyleSheet()
    sheet.replaceSync(DEFAULT_CSS)
    doc.adoptedStyleSheets = [sheet, ...doc.adoptedStyleSheets]
  } catch {
    /* old engines: the page styles the element itself */
  }
}

/** A new element: tag, class name, attributes (strings, set with setAttribute). */
export function el(tag, cls, attrs) {
  const e = document.createElement(tag)
  if (cls) e.className = cls
  if (attrs) for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v)
  return e
}
