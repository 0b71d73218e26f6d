//! PNG output: plotters' bitmap backend with text drawn by `ab_glyph`
//! directly. plotters' own ab_glyph text drops each glyph's left bearing,
//! which spaces letters unevenly (`kin d-worker`); here each glyph is placed
//! at its pen position plus its bounds.

use super::font;
use ab_glyph::{Font, FontRef, ScaleFont, point};
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};
use std::sync::OnceLock;

type Failed<'a> = DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

pub struct Png<'a>(pub BitMapBackend<'a>);

fn face() -> Option<&'static FontRef<'static>> {
    static FACE: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FACE.get_or_init(|| FontRef::try_from_slice(font::BYTES).ok()).as_ref()
}

impl<'a> DrawingBackend for Png<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), Failed<'a>> {
        self.0.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), Failed<'a>> {
        self.0.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Failed<'a>> {
        self.0.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Failed<'a>> {
        self.0.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Failed<'a>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result<(), Failed<'a>> {
        self.0.blit_bitmap(pos, size, src)
    }

    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> Result<(), Failed<'a>> {
        let (Some(face), colour) = (face(), style.color()) else { return Ok(()) };
        let scaled = face.as_scaled(style.size() as f32);
        let mut glyphs = Vec::new();
        let mut pen = 0.0f32;
        let mut previous = None;
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = previous {
                pen += scaled.kern(p, id);
            }
            glyphs.push(id.with_scale_and_position(scaled.scale(), point(pen, 0.0)));
            pen += scaled.h_advance(id);
            previous = Some(id);
        }
        let dx = match style.anchor().h_pos {
            HPos::Left => 0.0,
            HPos::Center => -pen / 2.0,
            HPos::Right => -pen,
        };
        let (ascent, descent) = (scaled.ascent(), scaled.descent());
        let baseline = match style.anchor().v_pos {
            VPos::Top => ascent,
            VPos::Center => (ascent + descent) / 2.0,
            VPos::Bottom => descent,
        };
        // Offsets from the anchor, turned as the style asks (the y axis title).
        let turn = style.transform();
        let (w, h) = self.get_size();
        for glyph in glyphs {
            let Some(outline) = face.outline_glyph(glyph) else { continue };
            let bounds = outline.px_bounds();
            let mut pixels = Vec::new();
            outline.draw(|x, y, cover| pixels.push((x, y, cover)));
            let left = (dx + bounds.min.x).round() as i32;
            let top = (baseline + bounds.min.y).round() as i32;
            for (x, y, cover) in pixels {
                let (ox, oy) = turn.transform(left + x as i32, top + y as i32);
                let (px, py) = (pos.0 + ox, pos.1 + oy);
                if cover > 0.0 && px >= 0 && py >= 0 && px < w as i32 && py < h as i32 {
                    let alpha = colour.alpha * cover.min(1.0) as f64;
                    self.0.draw_pixel((px, py), BackendColor { alpha, rgb: colour.rgb })?;
                }
            }
        }
        Ok(())
    }
}
