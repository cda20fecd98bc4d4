{%- extends 'base.tpl' -%}

{%- block breadcrumbs -%}
<ol class="breadcrumb">
  <li class="active">What the class missed</li>
</ol>
{%- endblock -%}

{%- block messages -%}
<div class="panel-group">
  <div class="panel panel-default">
    <div class="panel-body">
      After grading, open an assignment's page: every rule the class missed, with who missed
      it and where the lesson teaches it, beside the same data as CSV and JSON Lines. The
      page is made afresh from the judge's records each time you open it here. It names
      every student: never release it with the feedback.
    </div>
  </div>
  {%- if said %}
  <div class="alert alert-warning" role="alert"><pre>{{ said }}</pre></div>
  {%- endif %}
</div>
{%- endblock -%}

{%- block table_header -%}
<tr>
  <th>Assignment ID</th>
  <th class="text-center">Graded submissions</th>
  <th class="text-center">The page</th>
</tr>
{%- endblock -%}

{%- block table_body -%}
{%- for assignment in assignments %}
<tr>
  <td>{{ assignment.name }}</td>
  <td class="text-center">{{ assignment.graded }}</td>
  <td class="text-center">
    {%- if assignment.graded -%}
    <a href="{{ base_url }}/formgrader/insight/{{ assignment.name | urlencode }}">What the class missed in {{ assignment.name }}</a>
    {%- else -%}
    not graded yet
    {%- endif -%}
  </td>
</tr>
{%- else %}
<tr><td colspan="3">No assignment in the gradebook yet.</td></tr>
{%- endfor %}
{%- endblock -%}
