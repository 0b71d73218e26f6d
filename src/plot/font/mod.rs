//! The embedded font: DejaVu Sans (licence in `DejaVuSans-LICENSE.txt` next to it), registered
//! with plotters so PNG text renders on machines without system fonts and
//! text widths are measured the same everywhere.

use plotters::style::{FontStyle, IntoFont, register_font};
use std::sync::Once;

pub const BYTES: &[u8] = include_bytes!("DejaVuSans.ttf");

/// The family every picture uses; SVG viewers fall back to their own sans-serif.
pub const FAMILY: &str = "sans-serif";

/// Registers the font once; every plot calls this before drawing.
pub fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font, checked by the tests.
        let _ = register_font(FAMILY, FontStyle::Normal, BYTES);
    });
}

/// The width in pixels of `text` at `size`.
pub fn width(text: &str, size: f64) -> i32 {
    register();
    (FAMILY, size).into_font().box_size(text).map_or(0, |(w, _)| w as i32)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_font_parses_and_measures_text() {
        assert!(ab_glyph::FontRef::try_from_slice(super::BYTES).is_ok());
        assert!(super::width("pod/web", 12.0) > super::width("pod", 12.0));
    }
}
