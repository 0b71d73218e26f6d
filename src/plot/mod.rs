//! Pictures of runs and predictions (`podsim plot`): the swimlane timeline
//! of one run, CDFs of milestone times over many, and the happens-before
//! graph. Each is drawn once against plotters' backend trait, so SVG and PNG
//! show the same picture; the format comes from the file's extension.

pub(crate) mod axis;
pub mod cdf;
mod font;
pub mod graph;
pub(crate) mod key;
pub mod palette;
mod png;
pub mod timeline;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::error::Error;
use std::path::Path;

/// What drawing returns: a backend's error, boxed.
pub type Drawn = Result<(), Box<dyn Error>>;

/// The picture formats, by file extension.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    pub fn of(path: &Path) -> Result<Format, String> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        match ext.as_str() {
            "svg" => Ok(Format::Svg),
            "png" => Ok(Format::Png),
            _ => Err(format!(
                "{}: unsupported picture format {:?}: the file name must end in .svg or .png",
                path.display(),
                path.extension().and_then(|e| e.to_str()).unwrap_or("")
            )),
        }
    }
}

/// A picture: its size in pixels, and how to draw it on any backend.
pub trait Picture {
    fn size(&self) -> (u32, u32);
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Drawn
    where
        DB::ErrorType: 'static;
}

/// Draws `picture` into `path`, as SVG or PNG by its extension.
pub fn save(picture: &impl Picture, path: &Path) -> Result<(), String> {
    font::register();
    let failed = |e: Box<dyn Error>| format!("{}: {e}", path.display());
    match Format::of(path)? {
        Format::Svg => {
            let svg = svg(picture).map_err(failed)?;
            std::fs::write(path, svg).map_err(|e| format!("{}: {e}", path.display()))
        }
        Format::Png => {
            let area = png::Png(BitMapBackend::new(path, picture.size())).into_drawing_area();
            picture.draw(&area).map_err(failed)?;
            area.present().map_err(|e| failed(e.into()))
        }
    }
}

/// The picture as an SVG document's text (for a file, or inline in a page).
pub fn svg(picture: &impl Picture) -> Result<String, Box<dyn Error>> {
    font::register();
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, picture.size()).into_drawing_area();
        picture.draw(&area)?;
        area.present()?;
    }
    Ok(svg)
}

/// Writes `text` at `at`, anchored by `h` and vertically centred.
fn text<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &str,
    at: (i32, i32),
    size: f64,
    colour: RGBColor,
    h: HPos,
) -> Drawn
where
    DB::ErrorType: 'static,
{
    let style = (font::FAMILY, size).into_font().color(&colour).pos(Pos::new(h, VPos::Center));
    area.draw(&Text::new(s.to_string(), at, style))?;
    Ok(())
}

/// `text` cut with `…` to fit in `width` pixels: its longest prefix that
/// fits with the `…`. A prefix only widens as it grows, so the search
/// gallops from the start then bisects: a label costs a few measures of
/// prefixes about as long as the column, however long the name.
fn fit(text: &str, size: f64, width: i32) -> String {
    if font::width(text, size) <= width {
        return text.to_string();
    }
    // Where each prefix ends: `ends[k]` is the byte length of the first k characters.
    let ends: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
    let fits = |chars: usize| font::width(&format!("{}…", &text[..ends[chars]]), size) <= width;
    // Invariant: a prefix of `lo` characters fits (none at all is the floor);
    // one of `hi` does not (the whole text does not).
    let whole = ends.len() - 1;
    let (mut lo, mut hi) = (0, 1.min(whole));
    while hi < whole && fits(hi) {
        (lo, hi) = (hi, (hi * 2).min(whole));
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) { lo = mid } else { hi = mid }
    }
    format!("{}…", &text[..ends[lo]])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The longest prefix that fits with its `…`, whatever the length.
    #[test]
    fn fit_keeps_the_longest_prefix_that_fits() {
        assert_eq!(fit("pod/web", 12.0, 500), "pod/web");
        let cut = fit("pod/web-5d8f7c9b4-x2x7q", 12.0, font::width("pod/web-5d8…", 12.0));
        assert_eq!(cut, "pod/web-5d8…");
        assert_eq!(fit("pod/web", 12.0, 0), "…");
        assert_eq!(fit("", 12.0, -5), "…");
        let long = "x".repeat(100_000);
        assert_eq!(fit(&long, 12.0, font::width("xxxx…", 12.0)), "xxxx…");
    }
}
