//! `generateName`: the API server's random suffix (apiserver storage/names
//! `SimpleNameGenerator`, apimachinery `rand.String`), the same for every kind.

use crate::rng::Stream;

/// `rand.alphanums`: no vowels and no 0, 1, 3, so no words and no look-alikes.
pub const ALPHANUMS: &[u8; 27] = b"bcdfghjklmnpqrstvwxz2456789";
/// `randomLength`.
pub const RANDOM_LENGTH: usize = 5;
/// `MaxGeneratedNameLength`: 63 − 5.
pub const MAX_GENERATED_NAME_LENGTH: usize = 58;

/// rand.String: n characters drawn uniformly from ALPHANUMS.
pub fn random_string(n: usize, rng: &mut Stream) -> String {
    (0..n).map(|_| ALPHANUMS[rng.below(ALPHANUMS.len() as u64) as usize] as char).collect()
}

/// SimpleNameGenerator.GenerateName: the base cut to 58 characters, then 5 random characters.
pub fn generate_name(base: &str, rng: &mut Stream) -> String {
    let mut cut = base.len().min(MAX_GENERATED_NAME_LENGTH);
    while !base.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{}", &base[..cut], random_string(RANDOM_LENGTH, rng))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_names() {
        let mut rng = Stream::new(1, "replicaset");
        let name = generate_name("web-66b6c48dd5-", &mut rng);
        assert_eq!(name.len(), 15 + 5);
        assert!(name.starts_with("web-66b6c48dd5-"));
        assert!(name[15..].bytes().all(|c| ALPHANUMS.contains(&c)));
        // Same seed, same names.
        let mut again = Stream::new(1, "replicaset");
        assert_eq!(generate_name("web-66b6c48dd5-", &mut again), name);
        // A long base is cut to 58, so the name is at most 63.
        let long = "x".repeat(100);
        let name = generate_name(&long, &mut rng);
        assert_eq!(name.len(), 63);
        assert_eq!(&name[..58], &long[..58]);
    }

    #[test]
    fn every_character_is_drawn() {
        // 27 characters; 5000 draws reach each of them.
        let mut rng = Stream::new(7, "names");
        let s = random_string(5000, &mut rng);
        assert!(ALPHANUMS.iter().all(|c| s.as_bytes().contains(c)));
        assert!(!s.contains(['a', 'e', 'i', 'o', 'u', '0', '1', '3']));
    }
}
