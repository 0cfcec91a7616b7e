// The keyboard help dialog of the player and of compare (WAI-ARIA's modal dialog pattern): it
// takes focus (its first control) when it opens, keeps Tab and Shift+Tab inside while open,
// and gives focus back to where it was when it closes.

const FOCUSABLE = 'button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])';

/** `overlay`: the dialog's element (hidden while closed). Returns show(open). */
export function helpDialog(overlay) {
  let returnTo = null;
  const controls = () => [...overlay.querySelectorAll(FOCUSABLE)].filter((node) => !node.disabled);
  overlay.addEventListener("keydown", (event) => {
    if (event.key !== "Tab" || overlay.hidden) return;
    const inside = controls();
    if (!inside.length) return;
    const first = inside[0];
    const last = inside[inside.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  });
  const show = (open) => {
    if (open === !overlay.hidden) return;
    overlay.hidden = !open;
    if (open) {
      returnTo = document.activeElement;
      controls()[0]?.focus();
    } else {
      if (returnTo?.isConnected && typeof returnTo.focus === "function") returnTo.focus({ preventScroll: true });
      returnTo = null;
    }
  };
  overlay.querySelector('[data-action="help-close"]')?.addEventListener("click", () => show(false));
  return show;
}
