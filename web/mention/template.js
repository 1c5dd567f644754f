// Template and prompt arguments of <mcp-mention>: after a resource template
// is chosen, its variables (host.templateVars, Go's RFC 6570 parser) are
// filled in one at a time in a labelled role=combobox input in the popup,
// with debounced, abortable completion (host.complete), each value checked
// at once with host.expand; after a prompt is chosen, its arguments the same
// way (completion by host.completePrompt, a required one may not be left
// empty, the host's getPrompt checks them all at the end). Backspace on an
// empty value steps back, Escape cancels.

import { displayText } from "../display.js"
import { el } from "./dom.js"
import { MAX_OPTION_NODES } from "./list.js"

const COMPLETE_DEBOUNCE = 150

/**
 * TemplateArgs is the argument step. hooks: announce(text) (the live
 * region), emit(type, detail), done(uri, session) after a template's last
 * variable, prompt(values, session) after a prompt's last argument (the
 * session stays open until end(); fail(message) shows why it did not
 * work), cancel(session) on Escape.
 */
export class TemplateArgs {
  #s = null // {template | prompt, host, tok, names, step, values, suggestions, active, timer, ac, busy}
  #hooks
  #ids

  constructor(idPrefix, hooks) {
    const id = (this.#ids = idPrefix)
    this.#hooks = hooks
    this.root = el("div", "mcp-mention-args")
    this.root.hidden = true
    this.tpl = el("div", "mcp-mention-args-template", { id: `${id}-tpl`, dir: "ltr" })
    this.label = el("label", "", { for: `${id}-arg` })
    this.input = el("input", "", {
      id: `${id}-arg`, type: "text", role: "combobox", autocomplete: "off", spellcheck: "false",
      "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": `${id}-sugg`,
      "aria-describedby": `${id}-tpl ${id}-err ${id}-hint`,
    })
    this.list = el("div", "mcp-mention-list", { id: `${id}-sugg`, role: "listbox", "aria-label": "Suggestions" })
    this.list.hidden = true
    this.err = el("div", "mcp-mention-error", { id: `${id}-err`, role: "alert" })
    const hint = el("div", "mcp-mention-hint", { id: `${id}-hint` })
    hint.textContent = "Enter accepts · Backspace on empty goes back · Esc cancels"
    this.root.append(this.tpl, this.label, this.input, this.list, this.err, hint)
  }

  /** Whether a template is being filled in. */
  get active() {
    return this.#s !== null
  }

  /** Listens on its own elements until signal aborts. */
  bind(signal) {
    const o = { signal }
    this.input.addEventListener("input", () => {
      this.err.textContent = ""
      this.#requestCompletion()
    }, o)
    this.input.addEventListener("keydown", (e) => this.#keydown(e), o)
    this.list.addEventListener("click", (e) => {
      const opt = e.target.closest?.("[role=option]")
      if (opt) this.#accept(opt.dataset.value)
    }, o)
  }

  /** Starts filling in template (from host, for token tok) with the variables names. */
  begin(template, host, tok, names) {
    this.#s = { template, host, tok, names, step: 0, values: {}, suggestions: [], active: -1, timer: 0, ac: null }
    this.root.hidden = false
    this.#showStep()
  }

  /** Starts filling in the arguments of prompt (a prompts/list descriptor from host, for token tok). */
  beginPrompt(prompt, host, tok) {
    const args = (Array.isArray(prompt.arguments) ? prompt.arguments : []).filter((a) => a && typeof a.name === "string")
    this.#s = {
      prompt, args, host, tok, names: args.map((a) => a.name), step: 0, values: {}, suggestions: [], active: -1, timer: 0, ac: null,
    }
    this.root.hidden = false
    this.#showStep()
  }

  /** The session in progress (for the element), or null. */
  get session() {
    return this.#s
  }

  /**
   * Shows message (a refused prompt: an invalid argument, a server error)
   * under the input and lets the person change the values; a message naming
   * one of the arguments (`argument "x"`) goes back to that argument.
   */
  fail(message) {
    const s = this.#s
    if (!s) return
    s.busy = false
    const named = /argument "([^"]+)"/.exec(message || "")?.[1]
    const k = named ? s.names.indexOf(named) : -1
    if (k >= 0 && k !== s.step) {
      s.step = k
      this.#showStep()
    }
    this.err.textContent = displayText(message || "The prompt failed", { multiline: true })
    this.input.focus()
    this.input.select()
  }

  /** Abandons the template in progress and hides the step; returns its session, or null. */
  end() {
    const s = this.#s
    if (!s) return null
    clearTimeout(s.timer)
    s.ac?.abort()
    this.#s = null
    this.root.hidden = true
    this.list.replaceChildren()
    this.list.hidden = true
    this.err.textContent = ""
    this.input.value = ""
    this.input.required = false
    this.input.setAttribute("aria-expanded", "false")
    this.input.removeAttribute("aria-activedescendant")
    return s
  }

  #showStep() {
    const s = this.#s
    const name = s.names[s.step]
    if (s.prompt) {
      this.#showPromptStep(s, name)
      return
    }
    this.tpl.replaceChildren()
    // the template with the expression holding the current variable highlighted
    const text = s.template.uriTemplate
    let at = 0
    for (const m of text.matchAll(/\{[^}]*\}/g)) {
      if (m.index > at) this.tpl.append(displayText(text.slice(at, m.index)))
      const span = el("span")
      span.textContent = displayText(m[0])
      let vars = []
      try {
        vars = s.host.templateVars(m[0])
      } catch {
        /* shown unhighlighted */
      }
      if (vars.includes(name)) span.className = "is-current"
      this.tpl.append(span)
      at = m.index + m[0].length
    }
    if (at < text.length) this.tpl.append(displayText(text.slice(at)))
    this.label.textContent = `${displayText(name)} (${s.step + 1} of ${s.names.length})`
    this.input.value = s.values[name] ?? ""
    this.#resetStep(s)
    this.#hooks.announce(`${displayText(s.template.title || s.template.name)}: enter ${displayText(name)}, ${s.step + 1} of ${s.names.length}`)
    this.#requestCompletion()
  }

  /** Clears what the previous step left: its error, its pending completion and its suggestions. */
  #resetStep(s) {
    this.err.textContent = ""
    s.ac?.abort()
    s.suggestions = []
    s.active = -1
    this.list.replaceChildren()
    this.list.hidden = true
    this.input.setAttribute("aria-expanded", "false")
    this.input.removeAttribute("aria-activedescendant")
  }

  /** The prompt's step: "/name" and its arguments, the current one marked; the argument's description below. */
  #showPromptStep(s, name) {
    const arg = s.args[s.step]
    this.tpl.replaceChildren(`/${displayText(s.prompt.name)}`)
    s.args.forEach((a, i) => {
      const span = el("span", i === s.step ? "is-current" : "")
      span.textContent = displayText(a.name) + (a.required ? "" : "?")
      this.tpl.append(" ", span)
    })
    if (arg.description) {
      const d = el("div", "mcp-mention-args-desc", { dir: "auto" })
      d.textContent = displayText(arg.description, { multiline: true })
      this.tpl.append(d)
    }
    const label = arg.title || arg.name
    this.label.textContent = `${displayText(label)} (${s.step + 1} of ${s.names.length}, ${arg.required ? "required" : "optional"})`
    this.input.value = s.values[name] ?? ""
    this.input.required = !!arg.required
    this.#resetStep(s)
    this.#hooks.announce(`${displayText(s.prompt.title || s.prompt.name)}: enter ${displayText(label)}, ${s.step + 1} of ${s.names.length}${arg.required ? ", required" : ""}`)
    this.#requestCompletion()
  }

  #requestCompletion() {
    const s = this.#s
    if (!s) return
    clearTimeout(s.timer)
    s.ac?.abort()
    s.timer = setTimeout(() => {
      if (this.#s !== s || typeof (s.prompt ? s.host.completePrompt : s.host.complete) !== "function") return
      const name = s.names[s.step]
      const value = this.input.value
      const ctx = {}
      for (const n of s.names.slice(0, s.step)) if (s.values[n] != null) ctx[n] = s.values[n]
      const ac = (s.ac = new AbortController())
      Promise.resolve()
        .then(() => s.prompt
          ? s.host.completePrompt(s.prompt.name, name, value, ctx, { signal: ac.signal })
          : s.host.complete(s.template.uriTemplate, name, value, ctx, { signal: ac.signal }))
        .then((c) => {
          if (ac.signal.aborted || this.#s !== s || s.names[s.step] !== name) return
          this.#renderSuggestions(Array.isArray(c?.values) ? c.values : [], c)
        })
        .catch((error) => {
          if (ac.signal.aborted || error?.kind === "cancelled") return
          if (this.#s === s) this.#renderSuggestions([], null)
          this.#hooks.emit("mcp-error", { host: s.host, error, stage: "complete" })
        })
    }, COMPLETE_DEBOUNCE)
  }

  #renderSuggestions(values, completion) {
    const s = this.#s
    s.suggestions = values.slice(0, MAX_OPTION_NODES).map(String)
    s.active = -1
    this.list.replaceChildren()
    s.suggestions.forEach((v, i) => {
      const o = el("div", "mcp-mention-option", {
        role: "option", id: `${this.#ids}-sugg-${i}`, "aria-selected": "false",
        "aria-setsize": String(s.suggestions.length), "aria-posinset": String(i + 1),
      })
      o.dataset.value = v
      o.dir = "auto"
      o.textContent = displayText(v)
      this.list.append(o)
    })
    const open = s.suggestions.length > 0
    this.list.hidden = !open
    this.input.setAttribute("aria-expanded", String(open))
    this.input.removeAttribute("aria-activedescendant")
    const more = completion?.hasMore ? " (more available, keep typing)" : ""
    this.#hooks.announce(open ? `${s.suggestions.length} suggestions${more}` : "No suggestions")
    this.#hooks.emit("mcp-suggestions", { name: s.names[s.step], values: s.suggestions.slice() })
  }

  #setSuggestion(i) {
    const s = this.#s
    const n = s.suggestions.length
    if (!n) return
    s.active = i < -1 ? n - 1 : i >= n ? -1 : i
    for (const o of this.list.children) o.setAttribute("aria-selected", "false")
    if (s.active >= 0) {
      const o = this.list.children[s.active]
      o.setAttribute("aria-selected", "true")
      o.scrollIntoView?.({ block: "nearest" })
      this.input.setAttribute("aria-activedescendant", o.id)
    } else this.input.removeAttribute("aria-activedescendant")
  }

  #keydown(e) {
    const s = this.#s
    if (!s || e.isComposing || e.keyCode === 229) return
    if (s.busy && e.key !== "Escape") {
      if (e.key === "Enter" || e.key === "Tab") e.preventDefault()
      return
    }
    if (e.metaKey || e.altKey || e.ctrlKey) return
    switch (e.key) {
      case "ArrowDown":
        e.preventDefault()
        this.#setSuggestion(s.active + 1)
        break
      case "ArrowUp":
        e.preventDefault()
        this.#setSuggestion(s.active - 1)
        break
      case "Enter":
      case "Tab":
        if (e.key === "Tab" && e.shiftKey) return
        e.preventDefault()
        this.#accept(s.active >= 0 ? s.suggestions[s.active] : this.input.value)
        break
      case "Backspace":
        if (this.input.value === "" && s.step > 0) {
          e.preventDefault()
          s.step--
          this.#showStep()
        }
        break
      case "Escape":
        e.preventDefault()
        e.stopPropagation()
        this.#hooks.cancel(this.end())
        break
    }
  }

  /** Takes value for the current variable; validates with expand(); steps on or finishes. */
  #accept(value) {
    const s = this.#s
    if (!s) return
    if (s.prompt) {
      this.#acceptArgument(s, String(value ?? ""))
      return
    }
    const name = s.names[s.step]
    const values = { ...s.values, [name]: String(value ?? "") }
    let uri
    try {
      uri = s.host.expand(s.template.uriTemplate, values)
    } catch (error) {
      const msg = error?.message || String(error)
      this.err.textContent = `Refused ${displayText(name)} = “${displayText(values[name])}”: ${displayText(msg, { multiline: true })}`
      this.input.focus()
      this.input.select()
      this.#hooks.emit("mcp-error", { host: s.host, error, stage: "expand", name, value: values[name], template: s.template.uriTemplate })
      return
    }
    s.values = values
    if (s.step + 1 < s.names.length) {
      s.step++
      this.#showStep()
      return
    }
    this.#hooks.done(uri, this.end())
  }

  /**
   * Takes value for the current prompt argument: a required one may not be
   * empty; an optional empty one is left out. After the last, hands the
   * values to the element (hooks.prompt), which gets the prompt; until it
   * answers, keys but Escape wait.
   */
  #acceptArgument(s, value) {
    const arg = s.args[s.step]
    if (arg.required && value === "") {
      this.err.textContent = `${displayText(arg.title || arg.name)} is required`
      this.input.focus()
      this.#hooks.emit("mcp-error", { host: s.host, error: new Error(`missing required argument "${arg.name}"`), stage: "prompt-argument", name: arg.name, prompt: s.prompt.name })
      return
    }
    const values = { ...s.values }
    if (value === "") delete values[arg.name]
    else values[arg.name] = value
    s.values = values
    if (s.step + 1 < s.names.length) {
      s.step++
      this.#showStep()
      return
    }
    s.busy = true
    clearTimeout(s.timer)
    s.ac?.abort()
    this.list.hidden = true
    this.input.setAttribute("aria-expanded", "false")
    this.#hooks.announce(`Getting ${displayText(s.prompt.title || s.prompt.name)}…`)
    this.#hooks.prompt({ ...values }, s)
  }
}

