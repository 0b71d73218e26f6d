fn main() -> std::process::ExitCode {
    podsim::cli::main()
}
