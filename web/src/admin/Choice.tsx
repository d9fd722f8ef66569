/**
 * A labelled select over a fixed list of values: what the people page's filters and its add form
 * share. It hands back only one of its own values, so the caller's state stays typed without a cast.
 */
export function Choice<T extends string>({
  label,
  name,
  value,
  options,
  onChange,
}: {
  label: string;
  name?: string;
  value: T;
  options: ReadonlyArray<readonly [T, string]>;
  onChange: (value: T) => void;
}) {
  return (
    <label>
      {label}
      <select
        name={name}
        value={value}
        onChange={(e) => {
          const picked = options.find(([option]) => option === (e.target as HTMLSelectElement).value);
          if (picked) onChange(picked[0]);
        }}
      >
        {options.map(([option, text]) => (
          <option key={option} value={option}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}
