//! kubectl's tabwriter (k8s.io/cli-runtime/pkg/printers `GetNewTabWriter`:
//! minwidth 6, padding 3, spaces): each cell but a line's last is padded to
//! its column's width, the widest cell plus 3. kubectl's fork of Go's
//! tabwriter remembers the widths across flushes and only widens them
//! (kubernetes#72418), so `get -w` stays aligned as events come.

/// `tabwriterMinWidth`, `tabwriterPadding`.
const MIN_WIDTH: usize = 6;
const PADDING: usize = 3;

/// A tabwriter and the column widths it has used so far.
#[derive(Default)]
pub struct TabWriter {
    widths: Vec<usize>,
}

impl TabWriter {
    /// Writes `rows` as one flush: the columns widen to fit them, never narrow.
    pub fn flush(&mut self, rows: &[Vec<String>]) -> String {
        for row in rows {
            // The last cell ends the line, not a column.
            for (i, cell) in row.iter().enumerate().take(row.len().saturating_sub(1)) {
                let w = (cell.chars().count() + PADDING).max(MIN_WIDTH);
                match self.widths.get_mut(i) {
                    Some(x) => *x = (*x).max(w),
                    None => self.widths.push(w),
                }
            }
        }
        let mut out = String::new();
        for row in rows {
            for (i, cell) in row.iter().enumerate() {
                out.push_str(cell);
                if i + 1 < row.len() {
                    let pad = self.widths[i].saturating_sub(cell.chars().count());
                    out.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|c| c.to_string()).collect()
    }

    /// kubernetes#72418's example: `kubectl get ns -w`. The list is one
    /// flush; each event another, which widens NAME once a longer name comes.
    #[test]
    fn widths_grow_across_flushes_and_never_shrink() {
        let mut w = TabWriter::default();
        let list = w.flush(&[
            row(&["NAME", "STATUS", "AGE"]),
            row(&["default", "Active", "9h"]),
            row(&["kube-system", "Active", "9h"]),
        ]);
        assert_eq!(list, "NAME          STATUS   AGE\ndefault       Active   9h\nkube-system   Active   9h\n");
        assert_eq!(w.flush(&[row(&["ns1", "Active", "0s"])]), "ns1           Active   0s\n");
        assert_eq!(
            w.flush(&[row(&["ns-with-a-really-long-name", "Active", "0s"])]),
            "ns-with-a-really-long-name   Active   0s\n"
        );
        assert_eq!(w.flush(&[row(&["ns1", "Terminating", "13s"])]), "ns1                          Terminating   13s\n");
    }

    #[test]
    fn a_column_is_at_least_six_wide() {
        let mut w = TabWriter::default();
        assert_eq!(w.flush(&[row(&["A", "B"])]), "A     B\n");
    }
}
