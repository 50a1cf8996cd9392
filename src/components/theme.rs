//! Light and dark: the page follows the system's `prefers-color-scheme` until the user picks
//! one with the toggle, and the pick persists (localStorage) across pages and reloads.
//!
//! Why split this way: the colours are one list in `style/main.css` (`light-dark()`, switched
//! by `color-scheme`), so a theme is only the `data-theme` attribute on `<html>`. The head
//! script sets it before the first paint (no flash of the wrong theme); the toggle, which only
//! works once hydrated, flips it and remembers the choice.

use leptos::prelude::*;

/// Where the choice is kept.
pub const THEME_KEY: &str = "daemonscope-theme";

/// Runs in `<head>` before the body paints: the stored choice, if any, onto `<html>`.
pub const THEME_BOOT_SCRIPT: &str = "try{var t=localStorage.getItem('daemonscope-theme');\
if(t==='light'||t==='dark'){document.documentElement.setAttribute('data-theme',t);}}catch(e){}";

/// The other theme of `current` (anything but "dark" counts as light).
pub fn other_theme(current: &str) -> &'static str {
    if current == "dark" {
        "light"
    } else {
        "dark"
    }
}

/// The top bar's button: switches between light and dark.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    view! {
        <button
            type="button"
            class="theme-toggle"
            data-testid="theme-toggle"
            title="Switch between light and dark"
            aria-label="Switch between light and dark theme"
            on:click=move |_| toggle_theme()
        >
            "◐ theme"
        </button>
    }
}

/// Flips `data-theme` on `<html>` from the theme in effect (the attribute, else the system's)
/// and stores the choice; a browser without storage still switches for this page.
#[cfg(feature = "hydrate")]
fn toggle_theme() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(root) = window.document().and_then(|d| d.document_element()) else {
        return;
    };
    let current = root.get_attribute("data-theme").unwrap_or_else(|| {
        let dark = window
            .match_media("(prefers-color-scheme: dark)")
            .ok()
            .flatten()
            .is_some_and(|m| m.matches());
        if dark { "dark" } else { "light" }.to_string()
    });
    let next = other_theme(&current);
    let _ = root.set_attribute("data-theme", next);
    if let Ok(Some(storage)) = window.local_storage() {
        let _ = storage.set_item(THEME_KEY, next);
    }
}

/// On the server there is no page to switch.
#[cfg(not(feature = "hydrate"))]
fn toggle_theme() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_toggle_goes_to_the_other_theme_and_the_script_uses_the_same_key() {
        assert_eq!(other_theme("dark"), "light");
        assert_eq!(other_theme("light"), "dark");
        assert_eq!(other_theme(""), "dark");
        assert!(THEME_BOOT_SCRIPT.contains(THEME_KEY));
    }
}
