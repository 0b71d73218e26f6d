//! Round tick values for a time axis: steps of 1, 2 or 5 times a power of
//! ten, about `target` of them across the range.

/// Tick positions from 0 to `max` (seconds) and the step between them.
pub fn ticks(max: f64, target: f64) -> (Vec<f64>, f64) {
    let raw = (max / target.max(1.0)).max(1e-3);
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|s| *s >= raw).unwrap_or(10.0 * power);
    let n = (max / step + 1e-9).floor() as usize;
    ((0..=n).map(|i| i as f64 * step).collect(), step)
}

/// A tick value as text: no trailing zeros.
pub fn label(value: f64, step: f64) -> String {
    let decimals = if step >= 1.0 { 0 } else { (-step.log10()).ceil() as usize };
    format!("{value:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_round() {
        assert_eq!(ticks(40.0, 10.0), (vec![0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0], 5.0));
        assert_eq!(ticks(240.0, 12.0).1, 20.0);
        assert_eq!(ticks(1.5, 10.0).1, 0.2);
        assert_eq!(label(0.4, 0.2), "0.4");
        assert_eq!(label(20.0, 20.0), "20");
    }
}
